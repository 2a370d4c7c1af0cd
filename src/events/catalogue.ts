/**
 * The one catalogue of domain event types: their names, what each means and which may leave
 * Lectern as webhooks. Each type's data has its schema in payloads.ts; docs/webhooks.md lists the
 * same types with those fields.
 */

interface EventTypeInfo {
  readonly description: string;
  /** Audit only: kept in the school's audit trail, never delivered to a webhook endpoint. */
  readonly auditOnly?: true;
}

export const EVENT_CATALOGUE = {
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
  'member.role_changed': { description: 'A member’s roles changed.' },
  'member.removed': { description: 'A member was removed from the school.' },
  'course.published': { description: 'A course became published.' },
  'course.unpublished': { description: 'A published course went back to draft or was archived.' },
  'coupon.created': { description: 'A coupon was created.' },
  'coupon.redeemed': { description: 'An order used a coupon.' },
  'member_app.created': { description: 'An operator registered a member app (OAuth client).' },
  'member_app.secret_rotated': { description: 'A member app’s client secret was replaced.' },
  'member_app.deleted': { description: 'A member app was deleted.' },
  'grant.created': { description: 'A member authorized an app (OAuth consent).' },
  'grant.revoked': { description: 'An app’s authorization was revoked.' },
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
} as const satisfies Record<string, EventTypeInfo>;

export type EventType = keyof typeof EVENT_CATALOGUE;

export const EVENT_TYPES = Object.keys(EVENT_CATALOGUE) as EventType[];

/** The types an endpoint may subscribe to. */
export const DELIVERABLE_EVENT_TYPES: readonly EventType[] = EVENT_TYPES.filter(
  (t) => !(EVENT_CATALOGUE[t] as EventTypeInfo).auditOnly,
);

/** Subscription patterns: a deliverable type, `<group>.*`, or `*` for every deliverable type. */
export function isEventPattern(pattern: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) {
    const group = pattern.slice(0, -1);
    return DELIVERABLE_EVENT_TYPES.some((t) => t.startsWith(group));
  }
  return (DELIVERABLE_EVENT_TYPES as readonly string[]).includes(pattern);
}

/** Whether an endpoint subscribed to `patterns` receives events of `type`. */
export function patternsMatch(patterns: readonly string[], type: string): boolean {
  if (!(DELIVERABLE_EVENT_TYPES as readonly string[]).includes(type)) return false;
  return patterns.some(
    (p) => p === '*' || p === type || (p.endsWith('.*') && type.startsWith(p.slice(0, -1))),
  );
}

export function isEventType(value: string): value is EventType {
  return Object.hasOwn(EVENT_CATALOGUE, value);
}
