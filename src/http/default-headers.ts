import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';

/**
 * Adds the headers every response carries (nosniff, a referrer policy), plus any `extra` one (the
 * request id), once the response is finished; a response that set one of them itself keeps its
 * own (a page's referrer policy).
 *
 * Served by the Node adapter (`c.env.outgoing`), they go on Node's `ServerResponse`, which merges
 * them under the response's own headers when the adapter writes the head: the response's web
 * `Headers` are never touched. Setting them there instead made the adapter build and convert
 * `Headers` it otherwise skips, the largest single cost of the request envelope
 * (docs/performance.md). Elsewhere (`app.request()`, `app.fetch` in process) they are set on the
 * response's `Headers` in place: `c.header()` after `next()` would rebuild the Response around its
 * body stream, which knocks the Node adapter off its fast path.
 */
export function applyDefaultHeaders(c: Context, extra?: readonly [string, string]): void {
  const outgoing = (c.env as Partial<HttpBindings> | undefined)?.outgoing;
  if (outgoing !== undefined && !outgoing.headersSent) {
    outgoing.setHeader('X-Content-Type-Options', 'nosniff');
    outgoing.setHeader('Referrer-Policy', 'no-referrer');
    if (extra) outgoing.setHeader(extra[0], extra[1]);
    return;
  }
  try {
    const headers = c.res.headers;
    if (!headers.has('X-Content-Type-Options')) headers.set('X-Content-Type-Options', 'nosniff');
    if (!headers.has('Referrer-Policy')) headers.set('Referrer-Policy', 'no-referrer');
    if (extra && !headers.has(extra[0])) headers.set(extra[0], extra[1]);
  } catch {
    // Immutable headers (e.g. Response.redirect()): fall back to rebuilding the response.
    const own = c.res.headers;
    if (!own.has('X-Content-Type-Options')) c.header('X-Content-Type-Options', 'nosniff');
    if (!own.has('Referrer-Policy')) c.header('Referrer-Policy', 'no-referrer');
    if (extra && !own.has(extra[0])) c.header(extra[0], extra[1]);
  }
}
