/**
 * The one formatter of money, dates, sizes and days for every page (the console, the school's
 * site, its learning area, the account): amounts (integer minor units) in the school's locale,
 * instants and calendar days in its time zone, and the instants where the school's days begin
 * (what a date typed into a form means). Pages with no school (the account) say instants in UTC
 * (`utcTimeOf`). No page formats a number, an amount or a date with Intl of its own.
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

// A code Intl does not know (a stored value from before the check) has no format: undefined.
function currencyFormat(locale: string, currency: string): Intl.NumberFormat | undefined {
  try {
    return numberFormat(locale, { style: 'currency', currency });
  } catch {
    return undefined;
  }
}

/** How many decimals `currency`'s minor units have (2 for EUR, 0 for JPY; 2 for an unknown code). */
export function currencyDigits(currency: string): number {
  return currencyFormat('en', currency)?.resolvedOptions().maximumFractionDigits ?? 2;
}

/**
 * An amount in minor units of `currency` (the school's by default), in the school's locale
 * ("$49.00", "49,00 €", "¥4,900"); a code Intl does not know is written after the plain amount.
 */
export function money(
  school: Pick<School, 'locale' | 'currency'>,
  amount: number,
  currency = school.currency,
): string {
  const format = currencyFormat(localeOf(school), currency);
  if (!format) return `${(amount / 100).toFixed(2)} ${currency}`;
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(amount / 10 ** digits);
}

/** A price as catalogues show it: "Free" for 0, else the amount. */
export function price(
  school: Pick<School, 'locale' | 'currency'>,
  amount: number,
  currency = school.currency,
) {
  return amount === 0 ? 'Free' : money(school, amount, currency);
}

/** A currency's name in the school's language ("US Dollar"), or its code when Intl has none. */
export function currencyName(school: Pick<School, 'locale'>, currency: string): string {
  try {
    return new Intl.DisplayNames([localeOf(school), 'en'], { type: 'currency' }).of(currency) ?? currency;
  } catch {
    return currency;
  }
}

/** A file's size in the school's locale, in decimal units: "1.2 MB", "18 kB", "512 bytes". */
export function fileSize(school: Pick<School, 'locale'>, bytes: number): string {
  const units = ['byte', 'kilobyte', 'megabyte', 'gigabyte'] as const;
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return numberFormat(localeOf(school), {
    style: 'unit',
    unit: units[unit],
    unitDisplay: unit === 0 ? 'long' : 'short',
    maximumFractionDigits: unit === 0 ? 0 : 1,
  }).format(value);
}

/** A count in the school's locale ("1,234"). */
export function count(school: Pick<School, 'locale'>, n: number): string {
  return numberFormat(localeOf(school)).format(n);
}

/** A share 0..1 as a percentage in the school's locale ("22.5%"). */
export function percent(school: Pick<School, 'locale'>, share: number): string {
  return numberFormat(localeOf(school), { style: 'percent', maximumFractionDigits: 1 }).format(share);
}

/**
 * An instant as the school's date and time ("27 Nov 2026, 14:05"), in its zone; a value that is
 * not an instant is shown as it is.
 */
export function dateTime(school: Pick<School, 'locale' | 'timezone'>, iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  return dateTimeFormat(localeOf(school), {
    timeZone: school.timezone,
    dateStyle: 'medium',
    timeStyle: 'short',
  }).format(ms);
}

/** An instant as a `<time>` element reading as the school's date and time. */
export function timeOf(school: Pick<School, 'locale' | 'timezone'>, iso: string): Html {
  return html`<time datetime="${iso}">${dateTime(school, iso)}</time>`;
}

/**
 * An instant as a `<time>` element in UTC ("2026-11-27 14:05 UTC"), for pages that belong to no
 * school (the account); a page of a school says it in the school's zone (`timeOf`).
 */
export function utcTimeOf(iso: string): Html {
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
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

/** The formatters of one school, bound once per page (the learning area's pages). */
export interface SchoolFormat {
  /** An amount in minor units of `currency` (the school's when omitted), e.g. "$49.00". */
  money(amount: number, currency?: string): string;
  /** An instant as a date in the school's zone, e.g. "3 March 2026". */
  date(iso: string): Html;
  /** A span of time in the school's zone, its zone named. */
  span(startIso: string, endIso: string): Html;
}

/** The formatters of `school`. */
export function schoolFormat(school: School): SchoolFormat {
  return {
    money: (amount, currency = school.currency) => money(school, amount, currency),
    date: (iso) => html`<time datetime="${iso}">${longDay(school, iso)}</time>`,
    span: (start, end) => html`<time datetime="${start}">${dateTimeRange(school, start, end)}</time>`,
  };
}
