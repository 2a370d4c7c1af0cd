import { type Actor, currentWorkScope, type EventScope, type SecurityLogSink } from '../store/work-scope.ts';

export type { Actor, EventScope, SecurityLogSink } from '../store/work-scope.ts';

export const SYSTEM_ACTOR: Actor = { type: 'system', id: null };

/**
 * The request's scope, carried implicitly (the work's scope, store/work-scope.ts, beside its
 * clock) rather than as an argument of every domain function: the domain signatures stay
 * `(db, schoolId, …)`, and an event recorded deep inside a unit of work still names the request
 * and the person behind it. Outside any request (housekeeping, the worker, CLI commands) the
 * actor is the system, and no security-log line is written for its events (only requests cause
 * the flagged ones: sign-ins, consents, revocations, role changes).
 */
export function freshEventScope(requestId: string | undefined, securityLog?: SecurityLogSink): EventScope {
  return { requestId, actor: SYSTEM_ACTOR, securityLog };
}

/** Names who acts for the rest of the current request (after a token or session was verified). */
export function identifyActor(actor: Actor): void {
  const scope = currentWorkScope()?.event;
  if (scope) scope.actor = actor;
}

/** The current request id, actor and security log; the system, and no log, without a scope. */
export function currentEventScope(): {
  requestId: string | null;
  actor: Actor;
  securityLog: SecurityLogSink | undefined;
} {
  const scope = currentWorkScope()?.event;
  return {
    requestId: scope?.requestId ?? null,
    actor: scope?.actor ?? SYSTEM_ACTOR,
    securityLog: scope?.securityLog,
  };
}
