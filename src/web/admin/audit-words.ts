/**
 * The audit trail in words: each event type of the catalogue as a sentence about what happened,
 * its kind as a label in a group (the type filter), and what changed where the data has before
 * and after values. A type without its own sentence is told from the catalogue's description
 * and its data's fields as "label: value", never as JSON.
 */
import { html } from 'hono/html';
import type { AuditEvent, AuditSubjects } from '../../domain/school/audit-trail.ts';
import type { School } from '../../domain/school/schools.ts';
import { EVENT_CATALOGUE, type EventType, isEventType } from '../../events/catalogue.ts';
import { describeScopes } from '../../oauth/scopes.ts';
import type { Html } from '../layout.ts';
import { dateTime, money } from '../shared/school-format.ts';

/** The filter's groups of event kinds, in the order the select lists them. */
const GROUPS = [
  'Courses',
  'Enrollments and progress',
  'Orders and coupons',
  'Subscriptions',
  'Events',
  'Members',
  'Apps and connections',
  'Webhooks',
] as const;
type Group = (typeof GROUPS)[number];

/** Each event type's kind as the type filter names it, and its group. */
const KINDS: { readonly [T in EventType]: readonly [Group, string] } = {
  'course.created': ['Courses', 'Course created'],
  'course.updated': ['Courses', 'Course changed'],
  'course.published': ['Courses', 'Course published'],
  'course.unpublished': ['Courses', 'Course unpublished or archived'],
  'enrollment.created': ['Enrollments and progress', 'Student enrolled'],
  'enrollment.expired': ['Enrollments and progress', 'Enrollment ended'],
  'enrollment.completed': ['Enrollments and progress', 'Course completed by a student'],
  'lecture.progress_recorded': ['Enrollments and progress', 'Lecture progress saved'],
  'lecture.completed': ['Enrollments and progress', 'Lecture completed'],
  'order.paid': ['Orders and coupons', 'Order paid'],
  'order.refunded': ['Orders and coupons', 'Order refunded'],
  'coupon.created': ['Orders and coupons', 'Coupon created'],
  'coupon.redeemed': ['Orders and coupons', 'Coupon used'],
  'subscription.created': ['Subscriptions', 'Subscription started'],
  'subscription.renewed': ['Subscriptions', 'Subscription renewed'],
  'subscription.past_due': ['Subscriptions', 'Subscription payment overdue'],
  'subscription.canceled': ['Subscriptions', 'Subscription canceled'],
  'event_registration.created': ['Events', 'Registered for an event'],
  'event_registration.canceled': ['Events', 'Event registration canceled'],
  'member.invited': ['Members', 'Person invited'],
  'member.joined': ['Members', 'Member joined'],
  'member.role_changed': ['Members', 'Roles changed'],
  'member.removed': ['Members', 'Member removed'],
  'member_app.created': ['Apps and connections', 'Member app registered'],
  'member_app.secret_rotated': ['Apps and connections', 'Member app secret replaced'],
  'member_app.deleted': ['Apps and connections', 'Member app deleted'],
  'grant.created': ['Apps and connections', 'App connected'],
  'grant.revoked': ['Apps and connections', 'App disconnected'],
  'webhook_endpoint.created': ['Webhooks', 'Endpoint added'],
  'webhook_endpoint.updated': ['Webhooks', 'Endpoint changed'],
  'webhook_endpoint.deleted': ['Webhooks', 'Endpoint deleted'],
  'webhook_endpoint.secret_rotated': ['Webhooks', 'Endpoint secret rotated'],
  'webhook_endpoint.disabled': ['Webhooks', 'Endpoint disabled by Lectern'],
  'webhook.test': ['Webhooks', 'Test event sent'],
};

/** The type filter's choices: each group with its kinds, in catalogue order within a group. */
export function kindGroups(): { group: string; kinds: { type: EventType; label: string }[] }[] {
  return GROUPS.map((group) => ({
    group,
    kinds: (Object.keys(KINDS) as EventType[])
      .filter((t) => KINDS[t][0] === group)
      .map((type) => ({ type, label: KINDS[type][1] })),
  }));
}

/** One entry told in words: the sentence, and what changed (before → after) or more about it. */
export interface Told {
  readonly sentence: Html;
  readonly details: readonly Html[];
  /** A longer list, folded away (what an app may do). */
  readonly more?: Html;
}

/** What a sentence needs beside the event: the school's formats and the names behind the ids. */
interface Telling {
  readonly school: School;
  readonly subjects: AuditSubjects;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);
const quoted = (text: string) => html`“${text}”`;

/** Words joined as people list them: "a", "a and b", "a, b and c". */
function joined(words: readonly string[]): string {
  if (words.length <= 1) return words[0] ?? '';
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

const rolesOf = (v: unknown) => joined(list(v)) || 'no role';

function person(t: Telling, id: unknown): string {
  const user = t.subjects.users.get(str(id));
  return user ? user.name : 'a person whose account was deleted';
}

function personWithEmail(t: Telling, id: unknown): Html {
  const user = t.subjects.users.get(str(id));
  return user ? html`${user.name} (${user.email})` : html`a person whose account was deleted`;
}

/** A course by its title now, or by the slug the event carried when the course is gone. */
function course(t: Telling, data: Record<string, unknown>): Html {
  const title = t.subjects.courses.get(str(data.course_id));
  if (title !== undefined) return html`the course ${quoted(title)}`;
  return data.slug ? html`the deleted course ${quoted(str(data.slug))}` : html`a deleted course`;
}

const lecture = (t: Telling, id: unknown) => {
  const title = t.subjects.lectures.get(str(id));
  return title === undefined ? html`a deleted lecture` : html`the lecture ${quoted(title)}`;
};
const plan = (t: Telling, id: unknown) => {
  const name = t.subjects.plans.get(str(id));
  return name === undefined ? html`a deleted plan` : html`the plan ${quoted(name)}`;
};
const schoolEvent = (t: Telling, id: unknown) => {
  const title = t.subjects.events.get(str(id));
  return title === undefined ? html`a deleted event` : html`the event ${quoted(title)}`;
};
const app = (t: Telling, id: unknown) => {
  const name = t.subjects.clients.get(str(id));
  return name === undefined ? html`an app that no longer exists` : html`the app ${quoted(name)}`;
};
const endpoint = (t: Telling, data: Record<string, unknown>) => {
  const url = t.subjects.endpoints.get(str(data.endpoint_id)) ?? str(data.url);
  return url ? html`the webhook endpoint ${url}` : html`a deleted webhook endpoint`;
};

const amount = (t: Telling, value: unknown, currency: unknown) =>
  money(t.school, num(value), str(currency) || t.school.currency);
const instant = (t: Telling, value: unknown) => (typeof value === 'string' ? dateTime(t.school, value) : '');

const STATUS_WORDS: Record<string, string> = {
  draft: 'Draft',
  published: 'Published',
  archived: 'Archived',
  trialing: 'Trial',
  active: 'Active',
  past_due: 'Payment overdue',
  canceled: 'Canceled',
  paid: 'Paid',
  refunded: 'Refunded',
  partially_refunded: 'Partly refunded',
  failed: 'Failed',
};
const statusWord = (v: unknown) => STATUS_WORDS[str(v)] ?? str(v);

const change = (label: string, before: string | Html, after: string | Html) =>
  html`${label}: ${before} → ${after}`;

/** A course's changed fields in words, and each one's before → after where the event keeps both. */
const COURSE_FIELDS: Record<string, string> = {
  title: 'title',
  slug: 'web address',
  description: 'description',
  status: 'status',
  price_amount: 'price',
  currency: 'currency',
  image_url: 'image',
  checkout_url: 'checkout link',
  lecturer_ids: 'lecturers',
};

function courseUpdated(t: Telling, d: Record<string, unknown>): Told {
  const changed = list(d.changed);
  const price = () =>
    change(
      'Price',
      amount(t, d.previous_price_amount, d.previous_currency),
      amount(t, d.price_amount, d.currency),
    );
  const details: Html[] = [];
  if (changed.includes('title'))
    details.push(change('Title', quoted(str(d.previous_title)), quoted(str(d.title))));
  if (changed.includes('slug')) details.push(change('Web address', str(d.previous_slug), str(d.slug)));
  if (changed.includes('status')) {
    details.push(change('Status', statusWord(d.previous_status), statusWord(d.status)));
  }
  if (changed.includes('price_amount') || changed.includes('currency')) details.push(price());
  const onlyPrice = changed.every((f) => f === 'price_amount' || f === 'currency');
  if (onlyPrice) {
    return {
      sentence: html`Changed the price of ${quoted(str(d.title))} from ${amount(t, d.previous_price_amount, d.previous_currency)} to ${amount(t, d.price_amount, d.currency)}`,
      details: [],
    };
  }
  if (changed.length === 1 && changed[0] === 'title') {
    return {
      sentence: html`Renamed the course ${quoted(str(d.previous_title))} to ${quoted(str(d.title))}`,
      details: [],
    };
  }
  const words = joined(
    changed
      .filter((f) => f !== 'currency' || !changed.includes('price_amount'))
      .map((f) => COURSE_FIELDS[f] ?? f),
  );
  return { sentence: html`Changed the ${words} of ${course(t, d)}`, details };
}

/** The access scopes give, in words, folded away: an app's list can be long. */
function access(summary: string, scopes: unknown): Html {
  const lines = describeScopes(list(scopes));
  return html`<details><summary>${summary} (${lines.length})</summary><ul>${lines.map((l) => html`<li>${l}</li>`)}</ul></details>`;
}

type Teller = (t: Telling, d: Record<string, unknown>) => Told | Html;

const isTold = (x: Told | Html): x is Told =>
  typeof x === 'object' && x !== null && Object.hasOwn(x, 'sentence');

/** The sentence of each type (its subject is the actor shown beside it). */
const TELLERS: { readonly [T in EventType]?: Teller } = {
  'course.created': (t, d) => ({
    sentence: html`Created the course ${quoted(str(d.title))}`,
    details: [
      html`Price: ${num(d.price_amount) > 0 ? amount(t, d.price_amount, d.currency) : 'Free'}`,
      html`Status: ${statusWord(d.status)}`,
    ],
  }),
  'course.updated': courseUpdated,
  'course.published': (t, d) => html`Published ${course(t, d)}`,
  'course.unpublished': (t, d) =>
    d.status === 'archived' ? html`Archived ${course(t, d)}` : html`Moved ${course(t, d)} back to draft`,
  'enrollment.created': (t, d) => ({
    sentence: html`Enrolled ${person(t, d.user_id)} in ${course(t, d)}`,
    details: [html`Access: ${d.expires_at ? `until ${instant(t, d.expires_at)}` : 'for life'}`],
  }),
  'enrollment.expired': (t, d) => html`${person(t, d.user_id)}’s access to ${course(t, d)} ended`,
  'enrollment.completed': (t, d) => html`${person(t, d.user_id)} completed every lecture of ${course(t, d)}`,
  'lecture.progress_recorded': (t, d) =>
    html`Saved ${person(t, d.user_id)}’s place in ${lecture(t, d.lecture_id)} of ${course(t, d)} (${num(d.progress_percent)}% of the course done)`,
  'lecture.completed': (t, d) =>
    html`${person(t, d.user_id)} completed ${lecture(t, d.lecture_id)} of ${course(t, d)} (${num(d.progress_percent)}% of the course done)`,
  'order.paid': (t, d) =>
    html`Recorded order ${str(d.number)} of ${person(t, d.user_id)} as paid: ${amount(t, d.total_amount, d.currency)}`,
  'order.refunded': (t, d) =>
    num(d.refunded_amount) >= num(d.total_amount)
      ? html`Refunded order ${str(d.number)} in full: ${amount(t, d.refunded_amount, d.currency)}`
      : html`Refunded ${amount(t, d.refunded_amount, d.currency)} of order ${str(d.number)} (${amount(t, d.total_amount, d.currency)})`,
  'coupon.created': (_t, d) =>
    html`Created the coupon ${str(d.code)} (${d.kind === 'percent' ? 'a percentage off' : 'an amount off'})`,
  'coupon.redeemed': (t, d) =>
    html`${person(t, d.user_id)} used the coupon ${d.code ? str(d.code) : 'that was since deleted'} on an order`,
  'subscription.created': (t, d) =>
    html`${person(t, d.user_id)} subscribed to ${plan(t, d.plan_id)}${d.status === 'trialing' ? ' with a trial' : ''}`,
  'subscription.renewed': (t, d) => ({
    sentence: html`${person(t, d.user_id)}’s subscription to ${plan(t, d.plan_id)} renewed`,
    details: [
      change('Paid until', instant(t, d.previous_period_end) || 'not set', instant(t, d.current_period_end)),
    ],
  }),
  'subscription.past_due': (t, d) =>
    html`The payment of ${person(t, d.user_id)}’s subscription to ${plan(t, d.plan_id)} is overdue`,
  'subscription.canceled': (t, d) =>
    d.at_period_end === true
      ? html`Canceled ${person(t, d.user_id)}’s subscription to ${plan(t, d.plan_id)} from ${instant(t, d.current_period_end) || 'the end of its period'}`
      : html`Canceled ${person(t, d.user_id)}’s subscription to ${plan(t, d.plan_id)}`,
  'event_registration.created': (t, d) =>
    html`Registered ${person(t, d.user_id)} for ${schoolEvent(t, d.event_id)}`,
  'event_registration.canceled': (t, d) =>
    html`Canceled ${person(t, d.user_id)}’s registration for ${schoolEvent(t, d.event_id)}`,
  'member.invited': (_t, d) => html`Invited ${str(d.email)} as ${rolesOf(d.roles)}`,
  'member.joined': (t, d) => html`${personWithEmail(t, d.user_id)} joined the school as ${rolesOf(d.roles)}`,
  'member.role_changed': (t, d) => ({
    sentence: html`Changed the roles of ${personWithEmail(t, d.user_id)}`,
    details: [change('Roles', rolesOf(d.previous_roles), rolesOf(d.roles))],
  }),
  'member.removed': (t, d) =>
    html`Removed ${personWithEmail(t, d.user_id)} (${rolesOf(d.roles)}) from the school`,
  'member_app.created': (_t, d) => ({
    sentence: html`Registered the member app ${quoted(str(d.name))}`,
    details: [],
    more: access('What it may ask for', d.scopes),
  }),
  'member_app.secret_rotated': (t, d) => html`Replaced the client secret of ${app(t, d.client_id)}`,
  'member_app.deleted': (t, d) => html`Deleted ${app(t, d.client_id)}`,
  'grant.created': (t, d) => ({
    sentence: html`${person(t, d.user_id)} connected ${app(t, d.client_id)}`,
    details: [],
    more: access('What it may do', d.scopes),
  }),
  'grant.revoked': (t, d) => html`Disconnected ${app(t, d.client_id)} from ${person(t, d.user_id)}’s account`,
  'webhook_endpoint.created': (t, d) => ({
    sentence: html`Added ${endpoint(t, d)}`,
    details: [html`Events: ${list(d.event_types).join(', ')}`],
  }),
  'webhook_endpoint.updated': (t, d) =>
    html`Changed the ${joined(list(d.changed).map((f) => f.replaceAll('_', ' ')))} of ${endpoint(t, d)}`,
  'webhook_endpoint.deleted': (t, d) => html`Deleted ${endpoint(t, d)}`,
  'webhook_endpoint.secret_rotated': (t, d) => ({
    sentence: html`Rotated the signing secret of ${endpoint(t, d)}`,
    details: d.previous_secret_expires_at
      ? [html`The old secret keeps working until ${instant(t, d.previous_secret_expires_at)}`]
      : [],
  }),
  'webhook_endpoint.disabled': (t, d) =>
    html`Disabled ${endpoint(t, d)}: ${d.reason === 'gone' ? 'it answered that it is gone for good' : 'it kept failing for days'}`,
  'webhook.test': (t, d) => html`Sent a test event to ${endpoint(t, d)}`,
};

/** A data field's name as a label: `expires_at` → "Expires at", `user_id` → "User". */
function labelOf(key: string): string {
  const words = key.replace(/_(id|ids)$/, '').replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A data field's value in words: names for ids, amounts, dates, lists; never JSON. */
function fieldValue(t: Telling, key: string, value: unknown, data: Record<string, unknown>): string | Html {
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (Array.isArray(value)) return value.map(String).join(', ') || 'none';
  if (key.endsWith('_amount')) return amount(t, value, data.currency);
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value)) return instant(t, value);
  if (key === 'user_id' || key.endsWith('_user_id')) return person(t, value);
  if (key === 'course_id') return course(t, data);
  if (key === 'lecture_id') return lecture(t, value);
  if (key === 'plan_id') return plan(t, value);
  if (key === 'event_id') return schoolEvent(t, value);
  if (key === 'client_id') return app(t, value);
  if (key === 'status') return statusWord(value);
  return String(value);
}

/** A type without its own sentence: the catalogue's description and each field as "label: value". */
function generic(t: Telling, e: AuditEvent): Told {
  const described = isEventType(e.type) ? EVENT_CATALOGUE[e.type].description.replace(/\.$/, '') : undefined;
  const words = e.type.replace(/[._]/g, ' ');
  return {
    sentence: html`${described ?? words.charAt(0).toUpperCase() + words.slice(1)}`,
    details: Object.entries(e.data).map(
      ([key, value]) => html`${labelOf(key)}: ${fieldValue(t, key, value, e.data)}`,
    ),
  };
}

/** An event told in words. */
export function tell(school: School, subjects: AuditSubjects, e: AuditEvent): Told {
  const t: Telling = { school, subjects };
  const teller = isEventType(e.type) ? TELLERS[e.type] : undefined;
  if (!teller) return generic(t, e);
  const told = teller(t, e.data);
  return isTold(told) ? told : { sentence: told, details: [] };
}
