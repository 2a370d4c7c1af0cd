import { z } from 'zod';
import {
  createMembershipPlan,
  deleteMembershipPlan,
  getMembershipPlan,
  listMembershipPlans,
  type MembershipPlan,
  MembershipPlanCreate,
  MembershipPlanPatch,
  PLAN_INTERVALS,
  PLAN_STATUSES,
  updateMembershipPlan,
} from '../../domain/commerce/membership-plans.ts';
import {
  cancelSubscription,
  getSubscription,
  listSubscriptions,
  SUBSCRIPTION_STATUSES,
  type Subscription,
  SubscriptionFields,
  updateSubscription,
} from '../../domain/commerce/subscriptions.ts';
import { declare } from '../../domain/kernel/field-meta.ts';
import { mapPage } from '../../domain/kernel/pagination.ts';
import { defineOperation } from '../define-operation.ts';
import {
  Amount,
  bodyOf,
  Currency,
  Id,
  named,
  PageQuery,
  pageOf,
  Timestamp,
  toCamel,
  toSnake,
} from '../schemas.ts';

const PlanSchema = named(
  'MembershipPlan',
  z.object({
    id: Id,
    name: z.string(),
    description: declare(z.string(), { kind: 'long_text' }),
    interval: z.enum(PLAN_INTERVALS),
    price_amount: Amount.describe('Per interval, in minor units of `currency`.'),
    currency: Currency,
    status: z.enum(PLAN_STATUSES),
    courses: z.array(z.object({ id: Id, title: z.string(), slug: z.string() })),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  'A plan that unlocks a set of courses.',
);
const SubscriptionSchema = named(
  'Subscription',
  z.object({
    id: Id,
    user_id: Id,
    user: z.object({ id: Id, name: z.string(), email: z.string() }),
    plan_id: Id,
    plan: z.object({
      id: Id,
      name: z.string(),
      interval: z.string(),
      price_amount: Amount,
      currency: Currency,
    }),
    status: z.enum(SUBSCRIPTION_STATUSES),
    current_period_end: Timestamp.nullable(),
    cancel_at_period_end: z.boolean(),
    canceled_at: Timestamp.nullable(),
    trial_ends_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  'A member’s subscription to a plan.',
);
const presentPlan = (p: MembershipPlan) => toSnake(p);
const presentSubscription = (s: Subscription) => ({ ...toSnake(s), plan: toSnake(s.plan, []) });

const ByPlan = z.strictObject({ membership_plan_id: Id });
const BySubscription = z.strictObject({ subscription_id: Id });

const getPlan = defineOperation({
  name: 'membership_plans.get',
  summary: 'Get a membership plan',
  scope: 'membership_plans:read',
  method: 'GET',
  path: '/api/v1/membership-plans/{membership_plan_id}',
  input: { params: ByPlan },
  output: PlanSchema,
  etag: true,
  examples: {
    response: {
      id: 'pln_01jf3k6m2v8w9x0y1z2a3b4c5d',
      name: 'All access',
      description: 'Every course, cancel any time.',
      interval: 'month',
      price_amount: 1900,
      currency: 'EUR',
      status: 'active',
      courses: [
        { id: 'crs_01jf3k6m2v8w9x0y1z2a3b4c5d', title: 'Intro to Watercolour', slug: 'intro-to-watercolour' },
      ],
      created_at: '2026-03-01T09:00:00.000Z',
      updated_at: '2026-03-01T09:00:00.000Z',
    },
  },
  handler: async (ctx, { params }) =>
    presentPlan(await getMembershipPlan(ctx.db, ctx.schoolId, params.membership_plan_id)),
});

const getSubscriptionOp = defineOperation({
  name: 'subscriptions.get',
  summary: 'Get a subscription',
  scope: 'subscriptions:read',
  method: 'GET',
  path: '/api/v1/subscriptions/{subscription_id}',
  input: { params: BySubscription },
  output: SubscriptionSchema,
  etag: true,
  examples: {
    response: {
      id: 'sub_01jf3k6m2v8w9x0y1z2a3b4c5d',
      user_id: 'usr_01jf3k6m2v8w9x0y1z2a3b4c5d',
      user: { id: 'usr_01jf3k6m2v8w9x0y1z2a3b4c5d', name: 'Sam', email: 'sam@example.com' },
      plan_id: 'pln_01jf3k6m2v8w9x0y1z2a3b4c5d',
      plan: {
        id: 'pln_01jf3k6m2v8w9x0y1z2a3b4c5d',
        name: 'All access',
        interval: 'month',
        price_amount: 1900,
        currency: 'EUR',
      },
      status: 'active',
      current_period_end: '2026-04-01T09:00:00.000Z',
      cancel_at_period_end: false,
      canceled_at: null,
      trial_ends_at: null,
      created_at: '2026-03-01T09:00:00.000Z',
      updated_at: '2026-03-01T09:00:00.000Z',
    },
  },
  handler: async (ctx, { params }) =>
    presentSubscription(await getSubscription(ctx.db, ctx.schoolId, params.subscription_id)),
});

/** What a payment provider reports, on the wire: statuses and ISO 8601 instants (or null). */
const SubscriptionPatch = bodyOf(SubscriptionFields, {
  current_period_end: Timestamp.nullable(),
  trial_ends_at: Timestamp.nullable(),
});

const updateSubscriptionOp = defineOperation({
  name: 'subscriptions.update',
  summary: 'Update a subscription as its payment provider reports it',
  description:
    'Lectern has no payment provider integration: the operator (or their integration) reports renewals, failed payments and cancellations here. Fields left out stay. Events follow what moved: `subscription.renewed` when `current_period_end` moves forward on an active or trialing subscription (also back from `past_due`), `subscription.past_due` when it becomes past due, `subscription.canceled` when it becomes canceled. A canceled subscription stays canceled: another status is 409 `already_canceled`.',
  scope: 'subscriptions:write',
  method: 'PATCH',
  path: '/api/v1/subscriptions/{subscription_id}',
  input: { params: BySubscription, body: SubscriptionPatch },
  output: SubscriptionSchema,
  etag: true,
  current: getSubscriptionOp.handler,
  examples: { request: { status: 'active', current_period_end: '2026-05-01T09:00:00.000Z' } },
  handler: async (ctx, { params, body }) =>
    presentSubscription(
      await updateSubscription(ctx.db, ctx.schoolId, params.subscription_id, toCamel(body)),
    ),
});

/** Membership plan and subscription operations. */
export const planSubscriptionOperations = [
  defineOperation({
    name: 'membership_plans.list',
    summary: 'List membership plans',
    scope: 'membership_plans:read',
    method: 'GET',
    path: '/api/v1/membership-plans',
    input: { query: z.strictObject({ ...PageQuery, status: z.enum(PLAN_STATUSES).optional() }) },
    output: pageOf(PlanSchema),
    handler: async (ctx, { query }) => {
      const page = await listMembershipPlans(ctx.db, ctx.schoolId, { status: query.status }, query);
      return mapPage(page, presentPlan);
    },
  }),
  getPlan,
  defineOperation({
    name: 'membership_plans.create',
    summary: 'Create a membership plan',
    description: 'The currency defaults to the school’s.',
    scope: 'membership_plans:write',
    method: 'POST',
    path: '/api/v1/membership-plans',
    input: {
      body: bodyOf(MembershipPlanCreate),
    },
    output: PlanSchema,
    status: 201,
    etag: true,
    examples: {
      request: {
        name: 'All access',
        interval: 'month',
        price_amount: 1900,
        currency: 'EUR',
        course_ids: ['crs_01jf3k6m2v8w9x0y1z2a3b4c5d'],
      },
    },
    handler: async (ctx, { body }) =>
      presentPlan(await createMembershipPlan(ctx.db, ctx.schoolId, toCamel(body))),
  }),
  defineOperation({
    name: 'membership_plans.update',
    summary: 'Update a membership plan',
    description: '`course_ids` replaces the included courses.',
    scope: 'membership_plans:write',
    method: 'PATCH',
    path: '/api/v1/membership-plans/{membership_plan_id}',
    input: { params: ByPlan, body: bodyOf(MembershipPlanPatch) },
    output: PlanSchema,
    etag: true,
    current: getPlan.handler,
    handler: async (ctx, { params, body }) =>
      presentPlan(await updateMembershipPlan(ctx.db, ctx.schoolId, params.membership_plan_id, toCamel(body))),
  }),
  defineOperation({
    name: 'membership_plans.delete',
    summary: 'Delete a membership plan',
    description: 'Archive it (`status: archived`) instead to keep existing subscriptions.',
    scope: 'membership_plans:write',
    method: 'DELETE',
    path: '/api/v1/membership-plans/{membership_plan_id}',
    input: { params: ByPlan },
    handler: async (ctx, { params }) => deleteMembershipPlan(ctx.db, ctx.schoolId, params.membership_plan_id),
  }),
  defineOperation({
    name: 'subscriptions.list',
    summary: 'List subscriptions',
    description: 'Oldest first; filter by `status`, `user_id` or `membership_plan_id`.',
    scope: 'subscriptions:read',
    method: 'GET',
    path: '/api/v1/subscriptions',
    input: {
      query: z.strictObject({
        ...PageQuery,
        status: z.enum(SUBSCRIPTION_STATUSES).optional(),
        user_id: Id.optional(),
        membership_plan_id: Id.optional(),
      }),
    },
    output: pageOf(SubscriptionSchema),
    handler: async (ctx, { query }) => {
      const page = await listSubscriptions(
        ctx.db,
        ctx.schoolId,
        { status: query.status, userId: query.user_id, planId: query.membership_plan_id },
        query,
      );
      return mapPage(page, presentSubscription);
    },
  }),
  getSubscriptionOp,
  updateSubscriptionOp,
  defineOperation({
    name: 'subscriptions.cancel',
    summary: 'Cancel a subscription',
    description:
      '`at_period_end: true` lets it run until `current_period_end` without renewing; otherwise it ends now. Already canceled: 409 `already_canceled`; no future period end: 409 `no_period_end`.',
    scope: 'subscriptions:write',
    method: 'POST',
    path: '/api/v1/subscriptions/{subscription_id}/cancel',
    input: { params: BySubscription, body: z.strictObject({ at_period_end: z.boolean().default(false) }) },
    output: SubscriptionSchema,
    annotations: { destructive: true },
    examples: { request: { at_period_end: true } },
    handler: async (ctx, { params, body }) =>
      presentSubscription(
        await cancelSubscription(ctx.db, ctx.schoolId, params.subscription_id, {
          atPeriodEnd: body.at_period_end,
        }),
      ),
  }),
];
