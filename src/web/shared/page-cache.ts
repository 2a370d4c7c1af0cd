/**
 * The public pages of a school's site, kept rendered in this process for visitors who are not
 * signed in, and answered 304 when the browser already has the same page (RFC 9110 §13.1.2).
 *
 * What is kept is exact, never stale: an entry is served only while the database's read stamp
 * (domain/kernel/read-stamp.ts) reads what it read before the page was rendered, so a change
 * made through any surface, by this instance or another, shows on the next load. Nothing
 * personal is kept: only GET requests without any cookie or Authorization header, with no query
 * string, outside the learning area, answered 200 with HTML, without Set-Cookie and without a
 * form that posts (its token is the visitor's, or expires). What time alone changes (an event
 * that has begun leaves the upcoming ones) shows within MAX_AGE_MS.
 */
import { createHash } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { readStamp } from '../../domain/kernel/read-stamp.ts';
import type { AppContext, AppEnv } from '../../http/context.ts';

/** One kept page: the stamp it was rendered under, its bytes and the headers it is sent with. */
interface Entry {
  readonly stamp: string;
  /** When it is rendered again whatever the stamp says (ms since the epoch). */
  readonly until: number;
  readonly body: Uint8Array;
  readonly etag: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** Bounds of the kept pages: they are only those that exist, but a school can have many. */
const MAX_ENTRIES = 2000;
const MAX_BYTES = 64 * 1024 * 1024;
const MAX_AGE_MS = 10_000;

// Revalidate on every use (the ETag makes that a 304), and the page differs with a session.
const CACHED_HEADERS = { 'Cache-Control': 'no-cache', Vary: 'Cookie' } as const;

/** Whether the request could only ever be answered with the page everyone gets. */
function anonymousRead(c: Context): boolean {
  const method = c.req.method;
  if (method !== 'GET' && method !== 'HEAD') return false;
  const raw = c.req.raw.headers;
  if (raw.has('cookie') || raw.has('authorization')) return false;
  const url = c.req.url;
  if (url.includes('?')) return false;
  return !/^\/schools\/[^/]+\/learn(?:\/|$)/.test(c.req.path);
}

/** If-None-Match (RFC 9110 §13.1.2): `*`, or the list holds this tag (weak comparison). */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/** The answer from a kept page: 304 when the browser has it, the page otherwise. */
function answer(c: Context, entry: Entry): Response {
  if (matches(c.req.header('if-none-match'), entry.etag)) {
    // RFC 9110 §15.4.5: the fields a 200 would have carried for caches, and no content.
    return c.body(null, 304, { ETag: entry.etag, ...CACHED_HEADERS });
  }
  return c.body(entry.body as Uint8Array<ArrayBuffer>, 200, entry.headers);
}

/** A rendered response everyone may be given: a page, not set up for this visitor. */
function keepable(res: Response): boolean {
  return (
    res.status === 200 &&
    !res.headers.has('set-cookie') &&
    (res.headers.get('content-type')?.startsWith('text/html') ?? false)
  );
}

// A form that posts carries a token: the visitor's CSRF token, or a signed one that expires.
const POSTING_FORM = /<form[^>]*method="post"/i;

/** The entry for a page's text and the response that carried it. */
function entryOf(res: Response, text: string, stamp: string, until: number): Entry {
  const body = new TextEncoder().encode(text);
  const etag = `"${createHash('sha256').update(body).digest('base64url')}"`;
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (name !== 'cache-control' && name !== 'pragma' && name !== 'content-length') headers[name] = value;
  });
  return { stamp, until, body, etag, headers: { ...headers, ETag: etag, ...CACHED_HEADERS } };
}

/**
 * The middleware, mounted by one line in front of the school sites (pages.ts). Entries are in
 * least-recently-used order, bounded in count and bytes; when the stamp moves, all go at once.
 */
export function publicPageCache(ctx: AppContext): MiddlewareHandler<AppEnv> {
  const stampOf = readStamp(ctx.db);
  const entries = new Map<string, Entry>();
  let current = '';
  let bytes = 0;

  const drop = (path: string, entry: Entry) => {
    entries.delete(path);
    bytes -= entry.body.byteLength;
  };
  const put = (path: string, entry: Entry) => {
    const old = entries.get(path);
    if (old) drop(path, old);
    entries.set(path, entry);
    bytes += entry.body.byteLength;
    for (const [oldest, e] of entries) {
      if (entries.size <= MAX_ENTRIES && bytes <= MAX_BYTES) break;
      drop(oldest, e);
    }
  };

  return async (c, next) => {
    if (!stampOf || !anonymousRead(c)) return next();
    const stamp = await stampOf();
    if (stamp !== current) {
      entries.clear();
      bytes = 0;
      current = stamp;
    }
    const path = c.req.path;
    const now = ctx.clock.now();
    const hit = entries.get(path);
    if (hit && hit.until > now) {
      entries.delete(path);
      entries.set(path, hit);
      c.res = answer(c, hit);
      return;
    }
    await next();
    const res = c.res;
    if (!keepable(res)) return;
    const text = await res.text();
    c.res = undefined;
    if (POSTING_FORM.test(text)) {
      c.res = new Response(text, res);
      return;
    }
    const entry = entryOf(res, text, stamp, now + MAX_AGE_MS);
    // A write during the render moved the stamp: answer this page, keep nothing.
    if (stamp === current) put(path, entry);
    c.res = answer(c, entry);
  };
}
