import { AsyncLocalStorage } from 'node:async_hooks';
import type { ActorType } from './tables.ts';

/** Who caused a change: a user (maybe through an OAuth client), a client alone, or Lectern itself. */
export interface Actor {
  readonly type: ActorType;
  readonly id: string | null;
  readonly clientId?: string | null;
}

export const SYSTEM_ACTOR: Actor = { type: 'system', id: null };

/** What a request knows about itself that every event it causes carries. */
interface EventScope {
  requestId?: string;
  actor: Actor;
}

/**
 * The request's scope, carried implicitly (AsyncLocalStorage) rather than as an argument of
 * every domain function: the domain signatures stay `(db, schoolId, …)`, and an event recorded
 * deep inside a unit of work still names the request and the person behind it. Outside any
 * request (housekeeping, the worker, CLI commands) the actor is the system.
 */
const storage = new AsyncLocalStorage<EventScope>();

/** Runs fn (the rest of a request) in a fresh scope; the actor is the system until identified. */
export function runInEventScope<T>(requestId: string | undefined, fn: () => T): T {
  return storage.run({ requestId, actor: SYSTEM_ACTOR }, fn);
}

/** Names who acts for the rest of the current request (after a token or session was verified). */
export function identifyActor(actor: Actor): void {
  const scope = storage.getStore();
  if (scope) scope.actor = actor;
}

/** Runs fn as another actor (e.g. a user acting on their own behalf without a request). */
export function runAsActor<T>(actor: Actor, fn: () => T): T {
  const scope = storage.getStore();
  return storage.run({ requestId: scope?.requestId, actor }, fn);
}

/** The current request id and actor; the system without a scope. */
export function currentEventScope(): { requestId: string | null; actor: Actor } {
  const scope = storage.getStore();
  return { requestId: scope?.requestId ?? null, actor: scope?.actor ?? SYSTEM_ACTOR };
}
