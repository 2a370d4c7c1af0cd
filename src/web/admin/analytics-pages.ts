/**
 * `/admin/<school>/analytics`: the school's figures over a range of its days, read through the
 * admin API's analytics operations (runForConsole), so the page and the API never disagree.
 * Each bar of a chart is `analytics.summary` over that day, week or month of the school's zone.
 */
import { Hono } from 'hono';
import { reportNow } from '../../domain/commerce/analytics.ts';
import type { School } from '../../domain/school/schools.ts';
import { ProblemError } from '../../errors/problem-error.ts';
import { sendAreaPage } from '../shared/page-kit.ts';
import {
  addDays,
  dayLabel,
  dayOf,
  dayStart,
  daysBetween,
  monthLabel,
  monthStart,
  parseDay,
} from '../shared/school-format.ts';
import {
  type AnalyticsReport,
  analyticsPage,
  type CourseFigures,
  type Grain,
  type Period,
  type QuickRange,
  type RangeForm,
  type SummaryFigures,
} from './analytics-views.ts';
import { type ConsoleContext, type ConsoleEnv, operators } from './console-env.ts';
import { runForConsole } from './console-kit.ts';

const DATE_HINT = 'Enter a date as year-month-day, for example 2026-03-31.';
/** Ranges up to a month are drawn by day, up to three months by week, longer ones by month. */
const DAYS_BY_DAY = 31;
const DAYS_BY_WEEK = 92;

/** The ranges one click away, ending today in the school's zone. */
function quickRanges(today: string): QuickRange[] {
  return [
    { label: 'Last 7 days', from: addDays(today, -6), to: today },
    { label: 'Last 30 days', from: addDays(today, -29), to: today },
    { label: 'Last 12 months', from: monthStart(today, -11), to: today },
  ];
}

/** The range's days cut into the charts' bars: days, weeks from `from`, or calendar months. */
function periodsOf(
  school: School,
  from: string,
  to: string,
): { grain: Grain; periods: Omit<Period, 'figures'>[] } {
  const days = daysBetween(from, to) + 1;
  const periods: Omit<Period, 'figures'>[] = [];
  if (days <= DAYS_BY_DAY) {
    for (let d = from; d <= to; d = addDays(d, 1)) {
      periods.push({ from: d, to: d, label: dayLabel(school, d), axisLabel: dayLabel(school, d, 'short') });
    }
    return { grain: 'day', periods };
  }
  if (days <= DAYS_BY_WEEK) {
    for (let d = from; d <= to; d = addDays(d, 7)) {
      const last = addDays(d, 6) < to ? addDays(d, 6) : to;
      periods.push({
        from: d,
        to: last,
        label: `${dayLabel(school, d)} to ${dayLabel(school, last)}`,
        axisLabel: dayLabel(school, d, 'short'),
      });
    }
    return { grain: 'week', periods };
  }
  for (let d = from; d <= to; d = monthStart(d, 1)) {
    const end = addDays(monthStart(d, 1), -1);
    const last = end < to ? end : to;
    periods.push({
      from: d,
      to: last,
      label: monthLabel(school, d),
      axisLabel: monthLabel(school, d, 'short'),
    });
  }
  return { grain: 'month', periods };
}

/** The instants the school's days `from` to `to` (inclusive) cover, as the operations take them. */
const instants = (school: School, from: string, to: string) => ({
  from: dayStart(school, from),
  to: dayStart(school, addDays(to, 1)),
});

/** The range's field errors a refusal of the operations names (`query.from`, `query.to`). */
function rangeErrors(err: ProblemError): RangeForm['errors'] {
  const errors: { from?: string; to?: string } = {};
  for (const e of err.errors ?? []) {
    const field = e.field.replace(/^query\./, '');
    // "must be before to" reads as "From must be before To."; a sentence of its own stays one.
    const text = e.message.startsWith('must')
      ? `${field === 'to' ? 'To' : 'From'} ${e.message.replace(/ to$/, ' To')}.`
      : `${e.message.charAt(0).toUpperCase()}${e.message.slice(1)}.`;
    if (field === 'to') errors.to ??= text;
    else errors.from ??= text;
  }
  if (!errors.from && !errors.to) errors.from = err.detail ?? err.title;
  return errors;
}

const summaryOver = async (c: ConsoleContext, from: string, to: string) =>
  (
    await runForConsole(c.var.app, c.var.area, 'analytics.summary', {
      query: instants(c.var.area.school, from, to),
    })
  ).body as SummaryFigures;

function page(c: ConsoleContext, status: number, form: RangeForm, today: string, report?: AnalyticsReport) {
  const { area } = c.var;
  const body = analyticsPage(area, form, quickRanges(today), report);
  return sendAreaPage(c, status, `${area.school.name} · Analytics`, body);
}

/** The figures over the typed range (the last 30 days by default), charted by day, week or month. */
async function showAnalytics(c: ConsoleContext): Promise<Response> {
  const { area, app } = c.var;
  const school = area.school;
  const today = dayOf(school, reportNow());
  const typed = (name: string) => (c.req.query(name) ?? '').trim().slice(0, 40);
  const typedTo = typed('to');
  const typedFrom = typed('from');
  const to = typedTo ? parseDay(typedTo) : today;
  const from = typedFrom ? parseDay(typedFrom) : to && addDays(to, -29);
  if (!from || !to) {
    const errors = { from: typedFrom && !from ? DATE_HINT : undefined, to: to ? undefined : DATE_HINT };
    return page(c, 400, { from: typedFrom, to: typedTo, errors }, today);
  }
  const form = { from, to, errors: {} };
  let summary: SummaryFigures;
  try {
    summary = await summaryOver(c, from, to);
  } catch (err) {
    if (!(err instanceof ProblemError) || err.status >= 500) throw err;
    return page(c, err.status, { ...form, errors: rangeErrors(err) }, today);
  }
  const { grain, periods } = periodsOf(school, from, to);
  const [figures, completion] = await Promise.all([
    Promise.all(periods.map((p) => summaryOver(c, p.from, p.to))),
    runForConsole(app, area, 'analytics.course_completion', { query: instants(school, from, to) }),
  ]);
  const report: AnalyticsReport = {
    from,
    to,
    grain,
    summary,
    periods: periods.map((p, i) => ({ ...p, figures: figures[i] })),
    courses: (completion.body as { courses: CourseFigures[] }).courses,
  };
  return page(c, 200, form, today, report);
}

/** The analytics page. */
export function analyticsRoutes(): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  app.get('/:school/analytics', operators, showAnalytics);
  return app;
}
