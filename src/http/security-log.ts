import type { Logger } from 'pino';
import type { SecurityEvent } from '../events/catalogue.ts';

export type { SecurityEvent } from '../events/catalogue.ts';

/**
 * The security events Lectern logs at info, one JSON line each, named `<subject>.<what happened>`.
 * The names come from the one event catalogue (events/catalogue.ts): its log-only entries and the
 * domain types marked `securityLog`, so an action that is also a school's event has the same name
 * in the log as in the audit trail, and an operator's log query can rely on them (docs/operations.md).
 */

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
