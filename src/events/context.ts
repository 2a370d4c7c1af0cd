import { type Actor, currentWorkScope, type EventScope, runInWorkScope } from '../store/work-scope.ts';

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

/** Runs fn (the rest of a request) in a fresh scope; the actor is the system until identified. */
export function runInEventScope<T>(requestId: string | undefined, fn: () => T): T {
  return runInWorkScope({ clock: currentWorkScope()?.clock, event: freshEventScope(requestId) }, fn);
}

/** Names who acts for the rest of the current request (after a token or session was verified). */
export function identifyActor(actor: Actor): void {
  const scope = currentWorkScope()?.event;
  if (scope) scope.actor = actor;
}

/** Runs fn as another actor (e.g. a user acting on their own behalf without a request). */
export function runAsActor<T>(actor: Actor, fn: () => T): T {
  const work = currentWorkScope();
  return runInWorkScope({ clock: work?.clock, event: { requestId: work?.event?.requestId, actor } }, fn);
}

/** The current request id and actor; the system without a scope. */
export function currentEventScope(): { requestId: string | null; actor: Actor } {
  const scope = currentWorkScope()?.event;
  return { requestId: scope?.requestId ?? null, actor: scope?.actor ?? SYSTEM_ACTOR };
}
