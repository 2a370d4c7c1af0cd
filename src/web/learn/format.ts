/**
 * The school's formatting (web/shared/school-format.ts) bound to one school for the learning
 * area's pages: amounts in its currency, dates and spans in its zone as `<time>` elements.
 */
import { html } from 'hono/html';
import type { Html } from '../layout.ts';
import { dateTimeRange, longDay, money, type School } from '../shared/school-format.ts';

/** The formatters of one school, made once per page. */
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
