import { z } from 'zod';
import {
  checkRange,
  completionByCourse,
  revenueByDay,
  revenueTotals,
  summary,
} from '../../domain/commerce/analytics.ts';
import { declare } from '../../domain/kernel/field-meta.ts';
import { defineOperation } from '../define-operation.ts';
import { Currency, Id, named, Timestamp, toSnake } from '../schemas.ts';

const Range = z.strictObject({
  from: Timestamp.optional().describe('Start of the range (inclusive); default 30 days before `to`.'),
  to: Timestamp.optional().describe(
    'End of the range (exclusive); default now. At most 731 days after `from`.',
  ),
});
const RangeOut = z.object({ from: Timestamp, to: Timestamp });
const Revenue = z.object({
  currency: Currency,
  gross_amount: declare(z.number().int(), { kind: 'money' }),
  refunded_amount: declare(z.number().int(), { kind: 'money' }),
  net_amount: declare(z.number().int(), { kind: 'money' }),
  orders: z.number().int(),
});

const SummarySchema = named(
  'AnalyticsSummary',
  z.object({
    range: RangeOut,
    revenue: z.array(Revenue).describe('Per currency, in minor units.'),
    new_enrollments: z.number().int(),
    completions: z.number().int(),
    active_students: z.number().int().describe('Distinct students with lecture progress in the range.'),
    total_students: z
      .number()
      .int()
      .describe('Students with an unexpired enrollment at the end of the range.'),
  }),
);
const RevenueSchema = named(
  'AnalyticsRevenue',
  z.object({
    range: RangeOut,
    totals: z.array(Revenue),
    by_day: z.array(
      z.object({
        date: z.string().describe('UTC day, YYYY-MM-DD.'),
        currency: Currency,
        net_amount: declare(z.number().int(), { kind: 'money' }),
        orders: z.number().int(),
      }),
    ),
  }),
);
const CompletionSchema = named(
  'AnalyticsCourseCompletion',
  z.object({
    range: RangeOut,
    courses: z.array(
      z.object({
        course_id: Id,
        title: z.string(),
        enrollments: z.number().int().describe('Enrollments started in the range.'),
        completed_enrollments: z.number().int().describe('Of those, how many are completed.'),
        completion_rate: z.number().min(0).max(1).nullable(),
        completions_in_range: z.number().int(),
        average_progress_percent: declare(z.number(), { kind: 'percent' }).nullable(),
      }),
    ),
  }),
);

/** Read-only analytics over a date range. */
export const analyticsOperations = [
  defineOperation({
    name: 'analytics.summary',
    summary: 'Headline figures over a date range',
    description: 'Revenue per currency, new enrollments, completions, active and total students.',
    scope: 'analytics:read',
    method: 'GET',
    path: '/api/v1/analytics/summary',
    input: { query: Range },
    output: SummarySchema,
    examples: {
      response: {
        range: { from: '2026-02-01T00:00:00.000Z', to: '2026-03-01T00:00:00.000Z' },
        revenue: [
          { currency: 'EUR', gross_amount: 490000, refunded_amount: 4900, net_amount: 485100, orders: 100 },
        ],
        new_enrollments: 120,
        completions: 31,
        active_students: 210,
        total_students: 480,
      },
    },
    handler: async (ctx, { query }) => {
      const range = checkRange(query.from, query.to);
      const s = await summary(ctx.db, ctx.schoolId, range);
      return { range, ...toSnake(s, []), revenue: s.revenue.map((r) => toSnake(r, [])) };
    },
  }),
  defineOperation({
    name: 'analytics.revenue',
    summary: 'Revenue by day',
    description: 'Net revenue (after refunds) per UTC day and currency, plus totals.',
    scope: 'analytics:read',
    method: 'GET',
    path: '/api/v1/analytics/revenue',
    input: { query: Range },
    output: RevenueSchema,
    examples: {
      response: {
        range: { from: '2026-02-01T00:00:00.000Z', to: '2026-03-01T00:00:00.000Z' },
        totals: [{ currency: 'EUR', gross_amount: 9800, refunded_amount: 0, net_amount: 9800, orders: 2 }],
        by_day: [
          { date: '2026-02-03', currency: 'EUR', net_amount: 4900, orders: 1 },
          { date: '2026-02-17', currency: 'EUR', net_amount: 4900, orders: 1 },
        ],
      },
    },
    handler: async (ctx, { query }) => {
      const range = checkRange(query.from, query.to);
      const [totals, days] = await Promise.all([
        revenueTotals(ctx.db, ctx.schoolId, range),
        revenueByDay(ctx.db, ctx.schoolId, range),
      ]);
      return {
        range,
        totals: totals.map((r) => toSnake(r, [])),
        by_day: days.map((d) => toSnake(d, [])),
      };
    },
  }),
  defineOperation({
    name: 'analytics.course_completion',
    summary: 'Completion by course',
    description:
      'For every course: enrollments started in the range, how many of them are completed, completions in the range and average progress.',
    scope: 'analytics:read',
    method: 'GET',
    path: '/api/v1/analytics/course-completion',
    input: { query: Range },
    output: CompletionSchema,
    examples: {
      response: {
        range: { from: '2026-02-01T00:00:00.000Z', to: '2026-03-01T00:00:00.000Z' },
        courses: [
          {
            course_id: 'crs_01jf3k6m2v8w9x0y1z2a3b4c5d',
            title: 'Intro to Watercolour',
            enrollments: 40,
            completed_enrollments: 9,
            completion_rate: 0.225,
            completions_in_range: 11,
            average_progress_percent: 46.5,
          },
        ],
      },
    },
    handler: async (ctx, { query }) => {
      const range = checkRange(query.from, query.to);
      const courses = await completionByCourse(ctx.db, ctx.schoolId, range);
      return { range, courses: courses.map((c) => toSnake(c, [])) };
    },
  }),
];
