import { AsyncLocalStorage } from 'node:async_hooks';
import type { ActorType } from '../events/tables.ts';

/** What time it is, in epoch milliseconds. The app's is `AppContext.clock` (runtime.ts). */
export interface Clock {
  now(): number;
}

/** Who caused a change: a user (maybe through an OAuth client), a client alone, or Lectern itself. */
export interface Actor {
  readonly type: ActorType;
  readonly id: string | null;
  readonly clientId?: string | null;
}

/** Writes one line of the deployment's security log (http/security-log.ts). */
export type SecurityLogSink = (event: string, fields: Readonly<Record<string, unknown>>) => void;

/** What a request knows about itself that every event it causes carries (events/context.ts). */
export interface EventScope {
  requestId?: string;
  actor: Actor;
  /** Where the outbox writes the security-log line of a flagged event (events/outbox.ts). */
  securityLog?: SecurityLogSink;
}

/**
 * What a piece of work (a request, a job, a CLI command) carries implicitly: the clock it runs on
 * (store/time.ts) and the event scope its changes are recorded under (events/context.ts). One
 * AsyncLocalStorage for both, so a request opens one scope instead of two. The types
 * live here so neither module imports the other.
 *
 * The event part is one mutable object shared by every nested scope that did not replace it, so
 * `identifyActor` inside a nested `withClock` still names the actor for the whole request.
 */
export interface WorkScope {
  readonly clock?: Clock;
  readonly event?: EventScope;
}

const storage = new AsyncLocalStorage<WorkScope>();

/** The scope of the work in progress; undefined outside any. */
export function currentWorkScope(): WorkScope | undefined {
  return storage.getStore();
}

/** Runs `work` (and everything it awaits or schedules) in `scope`. */
export function runInWorkScope<T>(scope: WorkScope, work: () => T): T {
  return storage.run(scope, work);
}
