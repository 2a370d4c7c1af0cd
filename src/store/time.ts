/** Timestamps are stored as ISO 8601 UTC text with milliseconds, so they sort as text. */
export function isoNow(now: number = Date.now()): string {
  return new Date(now).toISOString();
}

/** The ISO timestamp `seconds` from now (negative for the past). */
export function isoIn(seconds: number, now: number = Date.now()): string {
  return new Date(now + seconds * 1000).toISOString();
}
