import { type Actor, currentWorkScope, type EventScope } from '../store/work-scope.ts';

export type { Actor, EventScope } from '../store/work-scope.ts';

export const SYSTEM_ACTOR: Actor = { type: 'system', id: null };

/**
 * The request's scope, carried implicitly (the work's scope, store/work-scope.ts, beside its
 * clock) rather than as an argument of every domain function: the domain signatures stay
 * `(db, schoolId, …)`, and an event recorded deep inside a unit of work still names the request
 * and the person behind it. Outside any request (housekeeping, the worker, CLI commands) the
 * actor is the system.
 */
export function freshEventScope(requestId: string | undefined): EventScope {
  return { requestId, actor: SYSTEM_ACTOR };
}

/** Names who acts for the rest of the current request (after a token or session was verified). */
export function identifyActor(actor: Actor): void {
  const scope = currentWorkScope()?.event;
  if (scope) scope.actor = actor;
}

/** The current request id and actor; the system without a scope. */
export function currentEventScope(): { requestId: string | null; actor: Actor } {
  const scope = currentWorkScope()?.event;
  return { requestId: scope?.requestId ?? null, actor: scope?.actor ?? SYSTEM_ACTOR };
}
