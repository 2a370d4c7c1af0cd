import type { MiddlewareHandler } from 'hono';
import { runInEventScope } from '../events/context.ts';
import type { AppEnv } from './context.ts';

/**
 * Opens the request's event scope (events/context.ts): every domain event the request causes
 * carries its request id, and the actor once a token or session has identified one.
 */
export function eventScope(): MiddlewareHandler<AppEnv> {
  return (c, next) => runInEventScope(c.get('requestId'), next);
}
