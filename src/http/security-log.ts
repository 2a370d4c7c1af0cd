import type { Logger } from 'pino';
import type { LogOnlyEvent } from '../events/catalogue.ts';
import type { SecurityLogSink } from '../events/context.ts';

export type { LogOnlyEvent } from '../events/catalogue.ts';

/**
 * The security events Lectern logs at info, one JSON line each, named `<subject>.<what happened>`.
 * The names come from the one event catalogue (events/catalogue.ts). A domain type marked
 * `securityLog` is logged by the outbox when the event is recorded (events/outbox.ts), through the
 * request's sink (`securityLogSink`), so it has one writer and the same name in the log as in the
 * audit trail; the log-only entries are logged here by whoever saw them happen. An operator's log
 * query can rely on the names (docs/operations.md).
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

/** Logs one log-only security event at info with its fixed name. */
export function logSecurityEvent(
  logger: Logger,
  event: LogOnlyEvent,
  fields: SecurityEventFields = {},
): void {
  logger.info({ event, ...fields }, `security event ${event}`);
}

/** Where a request's flagged domain events are logged (the outbox calls it): the same lines. */
export function securityLogSink(logger: Logger): SecurityLogSink {
  return (event, fields) => logger.info({ event, ...fields }, `security event ${event}`);
}
