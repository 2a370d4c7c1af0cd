/**
 * How every page says money, dates and days the way the school does (the console, the school's
 * site, its learning area): amounts (integer minor units) in its locale, instants and calendar
 * days in its time zone, and the instants where the school's days begin (what a date typed into a
 * form means).
 */
import { html } from 'hono/html';
import type { Html } from '../layout.ts';

/** What formatting needs of a school: its locale, time zone and currency. */
export interface School {
  readonly locale: string;
  readonly timezone: string;
  readonly currency: string;
}

// A stored locale is canonical BCP 47 (school-settings.ts); one Intl does not know falls back to
// English rather than failing the page.
const knownLocales = new Map<string, string>();
function localeOf(school: Pick<School, 'locale'>): string {
  let known = knownLocales.get(school.locale);
  if (known === undefined) {
    try {
      known = Intl.getCanonicalLocales(school.locale)[0] ?? 'en';
    } catch {
      known = 'en';
    }
    knownLocales.set(school.locale, known);
  }
  return known;
}

/** A calendar day as forms send it: YYYY-MM-DD. */
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

// Building an Intl formatter costs tens of microseconds, using one a fraction of that: each is
// built once per locale and options (a few per school; bounded all the same). A constructor that
// throws (an unknown zone or currency) throws here too, and nothing is kept.
const MAX_FORMATS = 2000;
const dateFormats = new Map<string, Intl.DateTimeFormat>();
const numberFormats = new Map<string, Intl.NumberFormat>();
function kept<F>(formats: Map<string, F>, key: string, build: () => F): F {
  let format = formats.get(key);
  if (!format) {
    format = build();
    if (formats.size >= MAX_FORMATS) formats.clear();
    formats.set(key, format);
  }
  return format;
}

/** `new Intl.DateTimeFormat(locale, options)`, built once. */
export function dateTimeFormat(locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale}|${JSON.stringify(options)}`;
  return kept(dateFormats, key, () => new Intl.DateTimeFormat(locale, options));
}

/** `new Intl.NumberFormat(locale, options)`, built once. */
export function numberFormat(locale: string, options: Intl.NumberFormatOptions = {}): Intl.NumberFormat {
  const key = `${locale}|${JSON.stringify(options)}`;
  return kept(numberFormats, key, () => new Intl.NumberFormat(locale, options));
}

function currencyFormat(locale: string, currency: string): Intl.NumberFormat {
  return numberFormat(locale, { style: 'currency', currency });
}

/** An amount in minor units of `currency` (the school's by default), in the school's locale. */
export function money(school: School, amount: number, currency = school.currency): string {
  const format = currencyFormat(localeOf(school), currency);
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(amount / 10 ** digits);
}

/** A count in the school's locale ("1,234"). */
export function count(school: School, n: number): string {
  return numberFormat(localeOf(school)).format(n);
}

/** A share 0..1 as a percentage in the school's locale ("22.5%"). */
export function percent(school: School, share: number): string {
  return numberFormat(localeOf(school), { style: 'percent', maximumFractionDigits: 1 }).format(share);
}

/** An instant as the school's date and time ("27 Nov 2026, 14:05"), in its zone. */
export function dateTime(school: School, iso: string): string {
  return dateTimeFormat(localeOf(school), {
    timeZone: school.timezone,
    dateStyle: 'medium',
    timeStyle: 'short',
  }).format(new Date(iso));
}

/** An instant as a `<time>` element reading as the school's date and time. */
export function timeOf(school: School, iso: string): Html {
  return html`<time datetime="${iso}">${dateTime(school, iso)}</time>`;
}

/** The offset of `timeZone` from UTC at the instant `ms`, in milliseconds. */
function zoneOffset(ms: number, timeZone: string): number {
  const parts = dateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(ms));
  const n = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? 0);
  const wall = new Date(0);
  wall.setUTCFullYear(n('year'), n('month') - 1, n('day'));
  wall.setUTCHours(n('hour'), n('minute'), n('second'));
  return wall.getTime() - Math.floor(ms / 1000) * 1000;
}

/** An ISO instant as the value of a datetime-local input in `timeZone` ("2026-03-29T03:30"). */
export function toLocalInput(iso: string, timeZone: string): string | undefined {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return undefined;
  const local = new Date(ms + zoneOffset(ms, timeZone)).toISOString();
  return local.slice(0, local.endsWith(':00.000Z') ? 16 : 19);
}

/**
 * A datetime-local value read as wall-clock time in `timeZone`, as an ISO UTC instant. A time
 * that happens twice (clocks going back) is the earlier; a time skipped when clocks go forward is
 * read with the offset before the change (02:30 becomes 03:30), as calendars do.
 */
export function fromLocalInput(value: string, timeZone: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map((x) => Number(x ?? 0));
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return undefined;
  // Date.UTC reads years 0–99 as 1900–1999; setUTCFullYear takes the year as written.
  const at = new Date(0);
  at.setUTCFullYear(y, mo - 1, d);
  at.setUTCHours(h, mi, s);
  const wall = at.getTime();
  const check = new Date(wall);
  if (check.getUTCDate() !== d || check.getUTCMonth() !== mo - 1) return undefined;
  const DAY = 86_400_000;
  const before = zoneOffset(wall - DAY, timeZone);
  const after = zoneOffset(wall + DAY, timeZone);
  const fits = [wall - before, wall - after].filter((t) => t + zoneOffset(t, timeZone) === wall);
  const instant = fits.length > 0 ? Math.min(...fits) : wall - before;
  return new Date(instant).toISOString();
}

/** Where `ms` falls on the wall clock of `timeZone`, read back as a UTC instant. */
function wallClock(timeZone: string, ms: number): number {
  return ms + zoneOffset(ms, timeZone);
}

/** The calendar day (YYYY-MM-DD) of the instant `ms` in the school's zone. */
export function dayOf(school: School, ms: number): string {
  return new Date(wallClock(school.timezone, ms)).toISOString().slice(0, 10);
}

/** The day `days` after `day` (YYYY-MM-DD; negative for before). */
export function addDays(day: string, days: number): string {
  const d = dayAsUtc(day);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** The first day of the month `months` after the month of `day`. */
export function monthStart(day: string, months = 0): string {
  const d = dayAsUtc(day);
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + months);
  return d.toISOString().slice(0, 10);
}

/** Days from `from` to `to` (YYYY-MM-DD), 0 when equal. */
export function daysBetween(from: string, to: string): number {
  return Math.round((dayAsUtc(to).getTime() - dayAsUtc(from).getTime()) / 86_400_000);
}

function dayAsUtc(day: string): Date {
  const [, y, m, d] = DAY.exec(day) ?? [];
  const date = new Date(0);
  date.setUTCFullYear(Number(y), Number(m) - 1, Number(d));
  return date;
}

/** `typed` if it is a real calendar day written YYYY-MM-DD (years 1900 to 9998), else undefined. */
export function parseDay(typed: string): string | undefined {
  const match = DAY.exec(typed);
  if (!match) return undefined;
  const year = Number(match[1]);
  if (year < 1900 || year > 9998) return undefined;
  return dayAsUtc(typed).toISOString().slice(0, 10) === typed ? typed : undefined;
}

/**
 * The instant (ISO 8601) the school's day `day` begins in its zone. Twice round the offset, so
 * a day that starts just after a daylight-saving change gets the offset in force then.
 */
export function dayStart(school: School, day: string): string {
  const guess = dayAsUtc(day).getTime();
  let at = guess - (wallClock(school.timezone, guess) - guess);
  at = guess - (wallClock(school.timezone, at) - at);
  return new Date(at).toISOString();
}

/** A day (YYYY-MM-DD) as the school writes it, e.g. "2 Mar 2026"; `short` leaves out the year. */
export function dayLabel(school: School, day: string, style: 'long' | 'short' = 'long'): string {
  return dateTimeFormat(localeOf(school), {
    timeZone: 'UTC',
    day: 'numeric',
    month: 'short',
    ...(style === 'long' ? { year: 'numeric' } : {}),
  }).format(dayAsUtc(day));
}

/** The month of `day` as the school writes it ("March 2026", or "Mar" when `short`). */
export function monthLabel(school: School, day: string, style: 'long' | 'short' = 'long'): string {
  return dateTimeFormat(localeOf(school), {
    timeZone: 'UTC',
    month: style === 'long' ? 'long' : 'short',
    ...(style === 'long' ? { year: 'numeric' } : {}),
  }).format(dayAsUtc(day));
}

/** An instant as the school's long date ("4 December 2026"), in its zone. */
export function longDay(school: School, iso: string): string {
  return dateTimeFormat(localeOf(school), {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: school.timezone,
  }).format(new Date(iso));
}

/** From one instant to another in the school's zone, the day once when it is one day, the zone named. */
export function dateTimeRange(school: School, startIso: string, endIso: string): string {
  return dateTimeFormat(localeOf(school), {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZone: school.timezone,
    timeZoneName: 'short',
  }).formatRange(new Date(startIso), new Date(endIso));
}

/** A length of time in words: "8 min", "1 h 5 min"; under a minute is "under 1 min"; none is "". */
export function duration(seconds: number): string {
  if (seconds <= 0) return '';
  const minutes = Math.round(seconds / 60);
  if (minutes < 1) return 'under 1 min';
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return h === 0 ? `${m} min` : m === 0 ? `${h} h` : `${h} h ${m} min`;
}

/** A stored word (`partially_refunded`) as people read it ("Partially refunded"). */
export function words(value: string): string {
  const spaced = value.replaceAll('_', ' ');
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}
