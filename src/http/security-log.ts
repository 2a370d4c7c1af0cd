import type { Logger } from 'pino';

/**
 * The security events Lectern logs at info, one JSON line each, named `<subject>.<what happened>`.
 * One list, so an operator's log query can rely on the names (README, "Logs").
 */
export const SECURITY_EVENTS = [
  'login.succeeded',
  'login.failed',
  'login.locked',
  'account.unlocked',
  'password.changed',
  'password.reset_requested',
  'password.reset',
  'sessions.revoked',
  'invitation.created',
  'invitation.resent',
  'invitation.revoked',
  'invitation.accepted',
  'member.roles_changed',
  'member.removed',
  'school.created',
  'grant.created',
  'grant.revoked',
  'token.revoked',
  'member_app.created',
  'member_app.secret_rotated',
  'member_app.deleted',
  'beta.toggled',
  'signing_key.rotated',
] as const;

export type SecurityEvent = (typeof SECURITY_EVENTS)[number];

/** Who and what a security event concerns; never a password, token, code or secret. */
export interface SecurityEventFields {
  schoolId?: string | null;
  /** The person the event is about (signed in, changed, invited…). */
  userId?: string | null;
  /** Who did it, when someone else did (an operator changing a member's roles). */
  actorUserId?: string | null;
  clientId?: string | null;
  requestId?: string;
  [detail: string]: unknown;
}

/** Logs one security event at info with its fixed name. */
export function logSecurityEvent(
  logger: Logger,
  event: SecurityEvent,
  fields: SecurityEventFields = {},
): void {
  logger.info({ event, ...fields }, `security event ${event}`);
}
