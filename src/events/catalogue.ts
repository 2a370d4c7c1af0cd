/**
 * The one catalogue of event names: the domain event types (their names, what each means and
 * which may leave Lectern as webhooks) and the events of the deployment's security log
 * (http/security-log.ts). Each domain type's data has its schema in payloads.ts; docs/webhooks.md
 * lists the same types with those fields. A domain type that is also a security-log event says
 * so (`securityLog`: the outbox then writes its log line, outbox.ts), and the events written only to that log (sign-ins, password resets,
 * sessions, signing keys…) are declared here too (`logOnly`), so one action has one name in the
 * audit trail and the log alike.
 */

interface CatalogueEntry {
  readonly description: string;
  /** Audit only: kept in the school's audit trail, never delivered to a webhook endpoint. */
  readonly auditOnly?: true;
  /** Also logged in the deployment's security log (one line at info) when it happens. */
  readonly securityLog?: true;
  /** Only a security-log line: never a domain event (no audit trail, no webhook, no schema). */
  readonly logOnly?: true;
}

const CATALOGUE = {
  'enrollment.created': { description: 'A member was enrolled in a course.' },
  'enrollment.expired': { description: 'An enrollment’s access ended (its expiry passed).' },
  'enrollment.completed': { description: 'A member completed every lecture of a course.' },
  'lecture.progress_recorded': {
    description: 'A member’s position in a lecture was saved; carries the course progress.',
  },
  'lecture.completed': { description: 'A member completed a lecture; carries the course progress.' },
  'order.paid': { description: 'An order was recorded as paid.' },
  'order.refunded': { description: 'An order was refunded (in part or in full).' },
  'subscription.created': { description: 'A membership-plan subscription started.' },
  'subscription.renewed': { description: 'A subscription entered a new period.' },
  'subscription.past_due': { description: 'A subscription’s payment is overdue.' },
  'subscription.canceled': { description: 'A subscription was canceled.' },
  'event_registration.created': { description: 'A member registered for an event.' },
  'event_registration.canceled': { description: 'A registration for an event was canceled.' },
  'member.invited': { description: 'Someone was invited to the school.' },
  'member.joined': { description: 'Someone became a member of the school.' },
  'member.role_changed': { description: 'A member’s roles changed.', securityLog: true },
  'member.removed': { description: 'A member was removed from the school.', securityLog: true },
  'course.published': { description: 'A course became published.' },
  'course.unpublished': { description: 'A published course went back to draft or was archived.' },
  'coupon.created': { description: 'A coupon was created.' },
  'coupon.redeemed': { description: 'An order used a coupon.' },
  'member_app.created': {
    description: 'An operator registered a member app (OAuth client).',
    securityLog: true,
  },
  'member_app.secret_rotated': {
    description: 'A member app’s client secret was replaced.',
    securityLog: true,
  },
  'member_app.deleted': { description: 'A member app was deleted.', securityLog: true },
  'grant.created': { description: 'A member authorized an app (OAuth consent).', securityLog: true },
  'grant.revoked': { description: 'An app’s authorization was revoked.', securityLog: true },
  'webhook_endpoint.created': { description: 'A webhook endpoint was added.', auditOnly: true },
  'webhook_endpoint.updated': { description: 'A webhook endpoint was changed.', auditOnly: true },
  'webhook_endpoint.deleted': { description: 'A webhook endpoint was deleted.', auditOnly: true },
  'webhook_endpoint.secret_rotated': {
    description: 'A webhook endpoint’s signing secret was rotated.',
    auditOnly: true,
  },
  'webhook_endpoint.disabled': {
    description: 'Lectern disabled a webhook endpoint (410 Gone, or failing for days).',
    auditOnly: true,
  },
  'webhook.test': {
    description: 'A test event an operator sent to one endpoint (never fanned out).',
    auditOnly: true,
  },
  'course.created': { description: 'A course was created.', auditOnly: true },
  'course.updated': {
    description: 'A course’s title, slug, status, price or other fields changed.',
    auditOnly: true,
  },
  // The deployment's security log only: an account is shared by every school its person belongs
  // to, and keys and sessions belong to the deployment, so these are never a school's events.
  'login.succeeded': { description: 'Someone signed in.', logOnly: true },
  'login.failed': {
    description: 'A sign-in failed (the account’s id when the email names one).',
    logOnly: true,
  },
  'login.locked': {
    description: 'A sign-in was refused before its password was checked (throttled).',
    logOnly: true,
  },
  'account.unlocked': { description: 'An operator unlocked an account.', logOnly: true },
  'password.changed': { description: 'Someone changed their password.', logOnly: true },
  'password.reset_requested': { description: 'A password reset link was asked for.', logOnly: true },
  'password.reset': { description: 'A password was reset through its link.', logOnly: true },
  'sessions.revoked': { description: 'An account’s other browser sessions were ended.', logOnly: true },
  'invitation.created': { description: 'An invitation was issued.', logOnly: true },
  'invitation.resent': { description: 'An invitation was sent again.', logOnly: true },
  'invitation.revoked': { description: 'An invitation was revoked.', logOnly: true },
  'invitation.accepted': { description: 'An invitation was accepted.', logOnly: true },
  'school.created': { description: 'A school was created.', logOnly: true },
  'token.revoked': { description: 'An access token was revoked (OAuth revocation).', logOnly: true },
  'beta.toggled': { description: 'An operator switched a school’s beta feature on or off.', logOnly: true },
  'signing_key.rotated': { description: 'The token signing key was rotated.', logOnly: true },
} as const satisfies Record<string, CatalogueEntry>;

type Catalogue = typeof CATALOGUE;
type Name = keyof Catalogue;

/** A domain event type: recorded in the outbox, kept in the audit trail. */
export type EventType = { [K in Name]: Catalogue[K] extends { logOnly: true } ? never : K }[Name];

/** An event of the deployment's security log: a log-only entry, or a domain type marked `securityLog`. */
export type SecurityEvent = {
  [K in Name]: Catalogue[K] extends { logOnly: true } | { securityLog: true } ? K : never;
}[Name];

/**
 * An event written only to the security log, by whoever saw it happen; the flagged domain types'
 * lines are the outbox's alone (outbox.ts).
 */
export type LogOnlyEvent = { [K in Name]: Catalogue[K] extends { logOnly: true } ? K : never }[Name];

const NAMES = Object.keys(CATALOGUE) as Name[];
const entry = (name: Name): CatalogueEntry => CATALOGUE[name];

/** The domain event types and what each means. */
export const EVENT_CATALOGUE = Object.fromEntries(
  NAMES.filter((n) => !entry(n).logOnly).map((n) => [n, CATALOGUE[n]]),
) as { readonly [T in EventType]: Catalogue[T] };

export const EVENT_TYPES = NAMES.filter((n): n is EventType => !entry(n).logOnly);

/** The names the security log uses, in catalogue order. */
export const SECURITY_EVENTS = NAMES.filter(
  (n): n is SecurityEvent => entry(n).logOnly === true || entry(n).securityLog === true,
);

/** The types an endpoint may subscribe to. */
export const DELIVERABLE_EVENT_TYPES: readonly EventType[] = EVENT_TYPES.filter((t) => !entry(t).auditOnly);

/** Subscription patterns: a deliverable type, `<group>.*`, or `*` for every deliverable type. */
export function isEventPattern(pattern: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) {
    const group = pattern.slice(0, -1);
    return DELIVERABLE_EVENT_TYPES.some((t) => t.startsWith(group));
  }
  return (DELIVERABLE_EVENT_TYPES as readonly string[]).includes(pattern);
}

/**
 * How `type` is named in a subscription, as an expression over some representation of text
 * (`literal`, `groupOf`: the type up to and including its first dot, `concat`).
 */
export interface PatternTerms<E> {
  literal(text: string): E;
  groupOf(type: E): E;
  concat(left: E, right: E): E;
}

/**
 * The subscription rule, written once: an endpoint receives a deliverable event when its
 * `event_types` holds one of these patterns of the event's type: `*`, the type itself, or its
 * `<group>.*`. patternsMatch evaluates it over strings; the fan-out trigger's SQL is generated
 * from it (webhooks/fan-out.ts).
 */
export function patternsOf<E>(type: E, terms: PatternTerms<E>): E[] {
  return [terms.literal('*'), type, terms.concat(terms.groupOf(type), terms.literal('*'))];
}

const textTerms: PatternTerms<string> = {
  literal: (text) => text,
  groupOf: (type) => type.slice(0, type.indexOf('.') + 1),
  concat: (left, right) => left + right,
};

/** Whether an endpoint subscribed to `patterns` receives events of `type`. */
export function patternsMatch(patterns: readonly string[], type: string): boolean {
  if (!(DELIVERABLE_EVENT_TYPES as readonly string[]).includes(type)) return false;
  const wanted = patternsOf(type, textTerms);
  return patterns.some((p) => wanted.includes(p));
}

export function isEventType(value: string): value is EventType {
  return Object.hasOwn(EVENT_CATALOGUE, value);
}
