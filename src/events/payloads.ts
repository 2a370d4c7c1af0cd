/**
 * The `data` of every event type, as one zod schema each: the contract an audit reader and a
 * webhook receiver rely on. Every key is always present (a value that may be absent is null) and
 * no other key appears, so each schema is strict. docs/webhooks.md lists the same fields per type
 * (test/events/payload-docs.test.ts holds the two equal), and recordEvent checks each payload
 * against its schema before writing it (outbox.ts says why).
 *
 * Values are JSON primitives and string lists: ids are the API's ids, instants ISO 8601 UTC,
 * money integer minor units. Enumerations (statuses, roles, sources) stay plain strings here:
 * their lists belong to the domain, which this layer sits beneath.
 */
import { z } from 'zod';
import type { EventType } from './catalogue.ts';

const Id = z.string().min(1);
const Instant = z.iso.datetime();
const Whole = z.int().min(0);
const Percent = z.int().min(0).max(100);
const Strings = z.array(z.string()).readonly();

const enrollment = {
  enrollment_id: Id,
  user_id: Id,
  course_id: Id,
  source: z.string(),
  expires_at: Instant.nullable(),
  progress_percent: Percent,
  completed_at: Instant.nullable(),
};

const progress = {
  enrollment_id: Id,
  user_id: Id,
  course_id: Id,
  lecture_id: Id,
  position_seconds: Whole,
  lecture_completed: z.boolean(),
  progress_percent: Percent,
  resume_lecture_id: Id.nullable(),
  resume_position_seconds: Whole.nullable(),
};

const order = {
  order_id: Id,
  number: z.string(),
  user_id: Id,
  status: z.string(),
  currency: z.string(),
  total_amount: Whole,
  refunded_amount: Whole,
};

const subscription = {
  subscription_id: Id,
  user_id: Id,
  plan_id: Id,
  status: z.string(),
  current_period_end: Instant.nullable(),
};

const registration = { registration_id: Id, event_id: Id, user_id: Id };

const member = {
  member_id: Id,
  user_id: Id,
  roles: Strings,
  invited_by_user_id: Id.nullable(),
};

// An invitation is not a membership yet: no member or user exists until the person accepts.
const invitation = {
  invitation_id: Id,
  email: z.string(),
  roles: Strings,
  invited_by_user_id: Id.nullable(),
  expires_at: Instant,
};

const course = { course_id: Id, slug: z.string(), status: z.string() };
const grant = { grant_id: Id, client_id: Id, user_id: Id, scopes: Strings };
const endpoint = { endpoint_id: Id };

export const EVENT_DATA_SCHEMAS = {
  'enrollment.created': z.strictObject(enrollment),
  'enrollment.expired': z.strictObject(enrollment),
  'enrollment.completed': z.strictObject(enrollment),
  'lecture.progress_recorded': z.strictObject(progress),
  'lecture.completed': z.strictObject(progress),
  'order.paid': z.strictObject(order),
  'order.refunded': z.strictObject(order),
  'subscription.created': z.strictObject(subscription),
  'subscription.renewed': z.strictObject({ ...subscription, previous_period_end: Instant.nullable() }),
  'subscription.past_due': z.strictObject(subscription),
  'subscription.canceled': z.strictObject({ ...subscription, at_period_end: z.boolean() }),
  'event_registration.created': z.strictObject(registration),
  'event_registration.canceled': z.strictObject(registration),
  'member.invited': z.strictObject(invitation),
  'member.joined': z.strictObject(member),
  'member.role_changed': z.strictObject({
    member_id: Id,
    user_id: Id,
    previous_roles: Strings,
    roles: Strings,
  }),
  'member.removed': z.strictObject({ member_id: Id, user_id: Id, roles: Strings }),
  'course.published': z.strictObject(course),
  'course.unpublished': z.strictObject(course),
  'coupon.created': z.strictObject({ coupon_id: Id, code: z.string(), kind: z.string() }),
  'coupon.redeemed': z.strictObject({
    coupon_id: Id,
    code: z.string().nullable(),
    order_id: Id,
    user_id: Id,
  }),
  'member_app.created': z.strictObject({ client_id: Id, name: z.string(), scopes: Strings }),
  'member_app.secret_rotated': z.strictObject({ client_id: Id }),
  'member_app.deleted': z.strictObject({ client_id: Id }),
  'grant.created': z.strictObject(grant),
  'grant.revoked': z.strictObject(grant),
  'webhook_endpoint.created': z.strictObject({ ...endpoint, url: z.string(), event_types: Strings }),
  'webhook_endpoint.updated': z.strictObject({ ...endpoint, changed: Strings }),
  'webhook_endpoint.deleted': z.strictObject({ ...endpoint, url: z.string() }),
  'webhook_endpoint.secret_rotated': z.strictObject({
    ...endpoint,
    previous_secret_expires_at: Instant.nullable(),
  }),
  'webhook_endpoint.disabled': z.strictObject({
    ...endpoint,
    reason: z.string(),
    last_status_code: z.int().nullable(),
  }),
  'webhook.test': z.strictObject(endpoint),
  'course.created': z.strictObject({
    ...course,
    title: z.string(),
    price_amount: Whole,
    currency: z.string(),
  }),
  // Flat before/after values beside the names of the fields that changed (description, image_url,
  // checkout_url and lecturer_ids are named in `changed` without their values).
  'course.updated': z.strictObject({
    ...course,
    title: z.string(),
    price_amount: Whole,
    currency: z.string(),
    changed: Strings,
    previous_slug: z.string(),
    previous_title: z.string(),
    previous_status: z.string(),
    previous_price_amount: Whole,
    previous_currency: z.string(),
  }),
} as const satisfies { readonly [T in EventType]: z.ZodObject };

/** A value of event data: small JSON, never a secret, password or token. */
type EventValue = string | number | boolean | null | readonly string[];

type KeysOf<S> = S extends z.ZodType ? { readonly [K in keyof z.input<S>]-?: EventValue } : never;

/**
 * What recordEvent accepts for `T`: exactly the schema's keys, so a payload written as an object
 * literal with a key missing or extra fails to compile. The values' types are checked when the
 * event is recorded (checkEventData): a compile-time check of them would make call sites restate
 * invariants the type system cannot see (a renewed subscription always had a period end).
 */
export type EventDataOf<T extends EventType> = KeysOf<(typeof EVENT_DATA_SCHEMAS)[T]>;

/** The data's field names of an event type, in the order they are documented. */
export function eventDataFields(type: EventType): string[] {
  return Object.keys(EVENT_DATA_SCHEMAS[type].shape);
}

/** A payload that does not match its type's schema: a programming error, never the caller's input. */
export class EventDataError extends Error {
  constructor(type: EventType, error: z.ZodError) {
    const problems = error.issues.map((i) => `${i.path.join('.') || '(data)'}: ${i.message}`);
    super(`${type} data does not match its schema: ${problems.join('; ')}`);
    this.name = 'EventDataError';
  }
}

/** Throws EventDataError unless `data` is exactly what `type`'s schema describes. */
export function checkEventData(type: EventType, data: unknown): void {
  const result = EVENT_DATA_SCHEMAS[type].safeParse(data);
  if (!result.success) throw new EventDataError(type, result.error);
}
