/**
 * Values as a person types and reads them in the school's conventions: money in minor units of a
 * currency (parsed exactly, without floating point), instants in the school's time zone, and the
 * currencies and zones this runtime knows.
 */
import { dateTimeFormat, numberFormat } from '../../shared/school-format.ts';

/** The school's conventions every field is shown and read in. */
export interface FieldContext {
  readonly currency: string;
  readonly locale: string;
  readonly timeZone: string;
}

/** How many decimals `currency` has (2 for EUR, 0 for JPY). */
function currencyDigits(currency: string, locale: string): number {
  try {
    return numberFormat(locale, { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** The currency's symbol and whether it goes before the amount in `locale`. */
export function currencyAffix(currency: string, locale: string): { symbol: string; before: boolean } {
  try {
    const parts = numberFormat(locale, { style: 'currency', currency }).formatToParts(1);
    const at = parts.findIndex((p) => p.type === 'currency');
    const first = parts.findIndex((p) => p.type === 'integer');
    return { symbol: parts[at]?.value ?? currency, before: at < first };
  } catch {
    return { symbol: currency, before: false };
  }
}

function separators(locale: string): { decimal: string; group: string } {
  try {
    const parts = numberFormat(locale).formatToParts(12345.6);
    return {
      decimal: parts.find((p) => p.type === 'decimal')?.value ?? '.',
      group: parts.find((p) => p.type === 'group')?.value ?? ',',
    };
  } catch {
    return { decimal: '.', group: ',' };
  }
}

/** Minor units as the text of an amount input ("49.00", or "49,00" where the comma is decimal). */
export function moneyInputValue(minor: number, currency: string, locale: string): string {
  const digits = currencyDigits(currency, locale);
  const negative = minor < 0;
  const abs = Math.abs(Math.trunc(minor));
  const whole = Math.trunc(abs / 10 ** digits);
  const frac = String(abs % 10 ** digits).padStart(digits, '0');
  const text = digits > 0 ? `${whole}${separators(locale).decimal}${frac}` : String(whole);
  return negative ? `-${text}` : text;
}

/**
 * An amount as a person types it ("49", "49.00", "1,234.50", "49,5") in minor units of
 * `currency`, exactly (no floating point); a message when it is not an amount.
 */
export function parseMoney(
  text: string,
  currency: string,
  locale: string,
): { ok: true; value: number } | { ok: false; message: string } {
  const digits = currencyDigits(currency, locale);
  const { symbol } = currencyAffix(currency, locale);
  let s = text.replace(/[\s\u00a0\u202f'\u2019]/g, '');
  if (symbol) s = s.split(symbol).join('');
  s = s.replace(new RegExp(`^${currency}|${currency}$`, 'i'), '');
  if (!/^\d[\d.,]*$/.test(s) || s.length > 40) return { ok: false, message: 'must be an amount, like 49.00' };
  const { group } = separators(locale);
  const dots = s.split('.').length - 1;
  const commas = s.split(',').length - 1;
  let decimalSep: string | undefined;
  if (dots > 0 && commas > 0) decimalSep = s.lastIndexOf('.') > s.lastIndexOf(',') ? '.' : ',';
  else if (dots + commas === 1) {
    const sep = dots ? '.' : ',';
    const after = s.length - s.indexOf(sep) - 1;
    // "1,000" in English is a thousand; "49,00" is forty-nine.
    decimalSep = sep === group && after === 3 && digits !== 3 ? undefined : sep;
  }
  // Several of one separator ("1,234,567") are groups of thousands: decimalSep stays undefined.
  let whole = s;
  let frac = '';
  if (decimalSep) {
    const at = s.lastIndexOf(decimalSep);
    whole = s.slice(0, at);
    frac = s.slice(at + 1);
  }
  whole = whole.replace(/[.,]/g, '');
  if (!/^\d*$/.test(frac) || whole === '') return { ok: false, message: 'must be an amount, like 49.00' };
  frac = frac.replace(/0+$/, '');
  if (frac.length > digits)
    return {
      ok: false,
      message:
        digits === 0
          ? `must be a whole amount (${currency} has no decimals)`
          : `can have at most ${digits} decimals`,
    };
  const minor = BigInt(whole) * 10n ** BigInt(digits) + BigInt(frac.padEnd(digits, '0') || '0');
  if (minor > BigInt(Number.MAX_SAFE_INTEGER)) return { ok: false, message: 'is too large' };
  return { ok: true, value: Number(minor) };
}

/** Minor units as a person reads them: "€49.00", "¥4,900". */
export function formatMoney(minor: number, currency: string, locale: string): string {
  const digits = currencyDigits(currency, locale);
  try {
    return numberFormat(locale, { style: 'currency', currency }).format(minor / 10 ** digits);
  } catch {
    return `${moneyInputValue(minor, currency, 'en')} ${currency}`;
  }
}

/** An ISO instant as a person reads it in the school's zone: "29 Mar 2026, 03:30". */
export function formatInstant(iso: string, fc: FieldContext): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  try {
    return dateTimeFormat(fc.locale, {
      dateStyle: 'medium',
      timeStyle: 'short',
      timeZone: fc.timeZone,
    }).format(ms);
  } catch {
    return new Date(ms).toISOString();
  }
}

/** Time zones and currencies this runtime knows, for the school settings' choices. */
export function supported(kind: 'timeZone' | 'currency'): readonly string[] {
  try {
    return Intl.supportedValuesOf(kind);
  } catch {
    return [];
  }
}
