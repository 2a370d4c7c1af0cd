import type { Context } from 'hono';
import { html } from 'hono/html';
import { sendPage } from './layout.ts';
import { PageRefusal, type RefusalLink } from './shared/refusal.ts';

/**
 * An error shown to the person in the browser, used where redirecting back to the client would
 * be unsafe (unknown client or redirect URI: RFC 6749 §4.1.2.1, OAuth 2.1 §7.12) or impossible.
 */
export function errorPage(
  c: Context,
  status: number,
  title: string,
  message: string,
  options: { code?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  const body = html`<h1>${title}</h1>
<div class="notice error" role="alert">
<p>${message}</p>
</div>
${options.code ? html`<p class="muted">Error code: <code>${options.code}</code></p>` : ''}
<p class="muted">You can close this window and try again from the app you came from.</p>`;
  return sendPage(c, status, title, body, { headers: options.headers });
}

/** "7 minutes", "1 minute": a wait rounded up to whole minutes. */
export function minutes(seconds: number): string {
  const n = Math.max(1, Math.ceil(seconds / 60));
  return `${n} minute${n === 1 ? '' : 's'}`;
}

/** The refusal of a throttled form or link: how long to wait, with Retry-After (RFC 9110 §10.2.3). */
export function tooManyAttempts(wait: number, what: string, links?: readonly RefusalLink[]): PageRefusal {
  return new PageRefusal(429, 'Too many attempts', `${what} Try again in ${minutes(wait)}.`, {
    links,
    headers: { 'Retry-After': String(wait) },
  });
}
