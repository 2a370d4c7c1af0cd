/**
 * The Analytics page: a chosen range of the school's days, revenue and enrollments over it as
 * charts with their numbers as tables, the headline figures and completion by course, all in the
 * school's currency, locale and time zone.
 */
import { html } from 'hono/html';
import type { School } from '../../domain/school/schools.ts';
import type { Html } from '../layout.ts';
import { notice } from '../shared/page-kit.ts';
import { count, dayLabel, money, percent } from '../shared/school-format.ts';
import { type Area, areaNav, areaPath } from './area.ts';
import { barChart } from './svg-chart.ts';

/** Revenue of one currency, as `analytics.summary` reports it (minor units). */
interface RevenueFigures {
  readonly currency: string;
  readonly gross_amount: number;
  readonly refunded_amount: number;
  readonly net_amount: number;
  readonly orders: number;
}

/** `analytics.summary`'s answer. */
export interface SummaryFigures {
  readonly revenue: readonly RevenueFigures[];
  readonly new_enrollments: number;
  readonly completions: number;
  readonly active_students: number;
  readonly total_students: number;
}

/** One course of `analytics.course_completion`'s answer. */
export interface CourseFigures {
  readonly course_id: string;
  readonly title: string;
  readonly enrollments: number;
  readonly completed_enrollments: number;
  readonly completion_rate: number | null;
  readonly completions_in_range: number;
  readonly average_progress_percent: number | null;
}

/** One bar of the charts: a day, a week or a month of the range, and its figures. */
export interface Period {
  /** Its first day, YYYY-MM-DD in the school's zone. */
  readonly from: string;
  /** Its last day (inclusive). */
  readonly to: string;
  /** How the table names it ("2 Mar 2026", "2–8 Mar 2026", "March 2026"). */
  readonly label: string;
  /** How the chart's axis names it ("2 Mar", "Mar"). */
  readonly axisLabel: string;
  readonly figures: SummaryFigures;
}

/** What a period is: the charts' bars are days, weeks or months. */
export type Grain = 'day' | 'week' | 'month';

/** The range as typed into the form (YYYY-MM-DD) and each field's error. */
export interface RangeForm {
  readonly from: string;
  readonly to: string;
  readonly errors: { from?: string; to?: string };
}

/** A quick range link. */
export interface QuickRange {
  readonly label: string;
  readonly from: string;
  readonly to: string;
}

/** The page's figures, once the range is good. */
export interface AnalyticsReport {
  readonly from: string;
  readonly to: string;
  readonly grain: Grain;
  readonly summary: SummaryFigures;
  readonly periods: readonly Period[];
  readonly courses: readonly CourseFigures[];
}

const GRAIN_WORD: Record<Grain, string> = { day: 'day', week: 'week', month: 'month' };
const GRAIN_HEADER: Record<Grain, string> = { day: 'Day', week: 'Week', month: 'Month' };

const analyticsPath = (area: Area, query?: Record<string, string>) =>
  areaPath(area.school.id, `/analytics${query ? `?${new URLSearchParams(query)}` : ''}`);

/** A currency's name in the school's language ("US dollars"), falling back to its code. */
function currencyName(school: School, currency: string): string {
  try {
    return new Intl.DisplayNames(school.locale, { type: 'currency' }).of(currency) ?? currency;
  } catch {
    return currency;
  }
}

function fieldAttrs(error: string | undefined, id: string): Html {
  return error ? html` aria-invalid="true" aria-describedby="${id}-error"` : html``;
}

function fieldError(error: string | undefined, id: string): Html | '' {
  return error ? html`<p class="field-error" id="${id}-error">${error}</p>` : '';
}

function rangeForm(area: Area, form: RangeForm, quick: readonly QuickRange[]): Html {
  const zone = area.school.timezone;
  return html`<form method="get" action="${analyticsPath(area)}" class="range" aria-labelledby="range-heading">
<h2 id="range-heading">Range</h2>
<p class="hint" id="range-hint">Days in the school’s time zone (${zone}), both included.</p>
<div class="fields">
<div><label for="from">From</label>
<input id="from" name="from" type="date" value="${form.from}" required${fieldAttrs(form.errors.from, 'from')}>
${fieldError(form.errors.from, 'from')}</div>
<div><label for="to">To</label>
<input id="to" name="to" type="date" value="${form.to}" required${fieldAttrs(form.errors.to, 'to')}>
${fieldError(form.errors.to, 'to')}</div>
</div>
<div class="actions start"><button class="primary" type="submit">Show figures</button></div>
</form>
<nav aria-label="Quick ranges"><ul class="quick">${quick.map(
    (q) =>
      html`<li><a href="${analyticsPath(area, { from: q.from, to: q.to })}"${q.from === form.from && q.to === form.to && !form.errors.from && !form.errors.to ? html` aria-current="true"` : ''}>${q.label}</a></li>`,
  )}</ul></nav>`;
}

/** The headline figures as a table of words and numbers. */
function summaryTable(school: School, s: SummaryFigures): Html {
  const row = (name: string, value: string, hint?: string) =>
    html`<tr><th scope="row">${name}${hint ? html`<br><span class="hint">${hint}</span>` : ''}</th><td>${value}</td></tr>`;
  return html`<table id="summary"><caption>Over the range</caption><tbody>
${row('New enrollments', count(school, s.new_enrollments), 'Enrollments that started in the range.')}
${row('Completed enrollments', count(school, s.completions), 'Enrollments completed in the range.')}
${row('Active students', count(school, s.active_students), 'Students who made progress on a lecture in the range.')}
${row('Students with access', count(school, s.total_students), 'Students with an enrollment that had not expired at the end of the range.')}
</tbody></table>`;
}

function revenueTable(school: School, revenue: readonly RevenueFigures[]): Html {
  return html`<table class="stack" id="revenue-totals"><caption>Revenue over the range</caption>
<thead><tr><th scope="col">Currency</th><th scope="col">Paid orders</th><th scope="col">Sales</th><th scope="col">Refunds</th><th scope="col">Net revenue</th></tr></thead><tbody>
${revenue.map(
  (r) =>
    html`<tr><th scope="row">${currencyName(school, r.currency)}</th><td data-label="Paid orders">${count(school, r.orders)}</td><td data-label="Sales">${money(school, r.gross_amount, r.currency)}</td><td data-label="Refunds">${money(school, r.refunded_amount, r.currency)}</td><td data-label="Net revenue">${money(school, r.net_amount, r.currency)}</td></tr>`,
)}</tbody></table>`;
}

/** The largest bar as a sentence for the chart's description. */
function peak(periods: readonly Period[], value: (p: Period) => number, say: (n: number) => string): string {
  let best: Period | undefined;
  for (const p of periods) if (value(p) > 0 && (!best || value(p) > value(best))) best = p;
  return best ? ` Highest: ${best.label}, ${say(value(best))}.` : '';
}

function revenueSection(area: Area, report: AnalyticsReport, span: string): Html {
  const school = area.school;
  const revenue = report.summary.revenue;
  if (revenue.length === 0) {
    return html`<h2 id="revenue">Revenue</h2><p class="muted" id="no-revenue">No revenue in this range yet: no paid orders between ${span}.</p>`;
  }
  const grain = GRAIN_WORD[report.grain];
  return html`<h2 id="revenue">Revenue</h2>
${revenueTable(school, revenue)}
${revenue.map((total, n) => {
  const net = (p: Period) => p.figures.revenue.find((r) => r.currency === total.currency)?.net_amount ?? 0;
  const orders = (p: Period) => p.figures.revenue.find((r) => r.currency === total.currency)?.orders ?? 0;
  const say = (amount: number) => money(school, amount, total.currency);
  const name = revenue.length > 1 ? ` in ${currencyName(school, total.currency)}` : '';
  return html`<h3 id="revenue-chart-${n}-heading">Net revenue by ${grain}${name}</h3>
<div class="chart-pair">${barChart({
    id: `revenue-chart-${n}`,
    title: `Net revenue by ${grain}${name}, ${span}`,
    description: `One bar per ${grain}, sales less refunds. Total ${say(total.net_amount)} from ${count(school, total.orders)} paid ${total.orders === 1 ? 'order' : 'orders'}.${peak(report.periods, net, say)}`,
    bars: report.periods.map((p) => ({ value: net(p), axisLabel: p.axisLabel })),
    axisValue: (v) => say(Math.round(v)),
  })}
<table class="figures" id="revenue-by-period-${n}"><caption>Net revenue by ${grain}${name}</caption>
<thead><tr><th scope="col">${GRAIN_HEADER[report.grain]}</th><th scope="col">Paid orders</th><th scope="col">Net revenue</th></tr></thead><tbody>
${report.periods.map((p) => html`<tr><th scope="row">${p.label}</th><td>${count(school, orders(p))}</td><td>${say(net(p))}</td></tr>`)}
</tbody><tfoot><tr><th scope="row">Total</th><td>${count(school, total.orders)}</td><td>${say(total.net_amount)}</td></tr></tfoot></table></div>`;
})}`;
}

function enrollmentSection(area: Area, report: AnalyticsReport, span: string): Html {
  const school = area.school;
  const total = report.summary.new_enrollments;
  if (total === 0) {
    return html`<h2 id="enrollments">Enrollments</h2><p class="muted" id="no-enrollments">No new enrollments in this range yet.</p>`;
  }
  const grain = GRAIN_WORD[report.grain];
  const value = (p: Period) => p.figures.new_enrollments;
  const say = (n: number) => count(school, n);
  const sayNew = (n: number) => `${say(n)} new ${n === 1 ? 'enrollment' : 'enrollments'}`;
  return html`<h2 id="enrollments">Enrollments</h2>
<div class="chart-pair">${barChart({
    id: 'enrollments-chart',
    title: `New enrollments by ${grain}, ${span}`,
    description: `One bar per ${grain}. Total ${sayNew(total)}.${peak(report.periods, value, sayNew)}`,
    bars: report.periods.map((p) => ({ value: value(p), axisLabel: p.axisLabel })),
    axisValue: (v) => say(v),
    integers: true,
  })}
<table class="figures" id="enrollments-by-period"><caption>New enrollments by ${grain}</caption>
<thead><tr><th scope="col">${GRAIN_HEADER[report.grain]}</th><th scope="col">New enrollments</th></tr></thead><tbody>
${report.periods.map((p) => html`<tr><th scope="row">${p.label}</th><td>${say(value(p))}</td></tr>`)}
</tbody><tfoot><tr><th scope="row">Total</th><td>${say(total)}</td></tr></tfoot></table></div>`;
}

function completionSection(school: School, courses: readonly CourseFigures[]): Html {
  if (courses.length === 0) {
    return html`<h2 id="completion">Completion by course</h2><p class="muted" id="no-courses">No courses yet.</p>`;
  }
  const none = html`<span class="muted">No enrollments</span>`;
  return html`<h2 id="completion">Completion by course</h2>
<p class="hint">Of the enrollments that started in the range, how many are completed and how far they got.</p>
<table class="stack" id="course-completion"><caption>Completion by course</caption>
<thead><tr><th scope="col">Course</th><th scope="col">Enrollments started</th><th scope="col">Completed</th><th scope="col">Completion rate</th><th scope="col">Average progress</th><th scope="col">Completions in range</th></tr></thead><tbody>
${courses.map(
  (c) =>
    html`<tr><th scope="row">${c.title}</th><td data-label="Enrollments started">${count(school, c.enrollments)}</td><td data-label="Completed">${count(school, c.completed_enrollments)}</td><td data-label="Completion rate">${c.completion_rate === null ? none : percent(school, c.completion_rate)}</td><td data-label="Average progress">${c.average_progress_percent === null ? none : percent(school, c.average_progress_percent / 100)}</td><td data-label="Completions in range">${count(school, c.completions_in_range)}</td></tr>`,
)}</tbody></table>`;
}

/** The whole page: the range form, then the report (or the reason there is none). */
export function analyticsPage(
  area: Area,
  form: RangeForm,
  quick: readonly QuickRange[],
  report: AnalyticsReport | undefined,
): Html {
  const school = area.school;
  const span = report ? `${dayLabel(school, report.from)} to ${dayLabel(school, report.to)}` : '';
  const s = report?.summary;
  const empty =
    s &&
    s.revenue.length === 0 &&
    s.new_enrollments === 0 &&
    s.completions === 0 &&
    s.active_students === 0 &&
    report.courses.every((c) => c.completions_in_range === 0);
  return html`${areaNav(area, 'analytics')}
<h1>${school.name} · Analytics</h1>
${report ? html`<p id="range-said">Figures from <strong>${dayLabel(school, report.from)}</strong> to <strong>${dayLabel(school, report.to)}</strong>.</p>` : ''}
${form.errors.from || form.errors.to ? notice('error', 'Fix the dates below to see the figures.') : ''}
${rangeForm(area, form, quick)}
${
  report && s
    ? html`${empty ? html`<div id="nothing-yet">${notice('warning', `Nothing yet in this range: no orders, enrollments or lecture progress from ${span}.`)}</div>` : ''}
<h2 id="figures">Students and enrollments</h2>
${summaryTable(school, s)}
${revenueSection(area, report, span)}
${enrollmentSection(area, report, span)}
${completionSection(school, report.courses)}`
    : ''
}`;
}
