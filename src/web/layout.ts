import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

/** An HTML fragment from `hono/html` (interpolations are escaped). */
export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

// Our own small stylesheet, inline and allowed by its hash: no external resources at all.
const CSS = `
:root{color-scheme:light dark;--fg:#1b1f24;--bg:#f6f7f9;--card:#fff;--muted:#5b6470;--accent:#1f4b99;--warn-bg:#fff4d6;--warn-fg:#6b4a00;--err-bg:#fde8e8;--err-fg:#8a1c1c;--border:#d5d9df}
@media (prefers-color-scheme:dark){:root{--fg:#e8eaed;--bg:#15171a;--card:#1f2226;--muted:#a3abb5;--accent:#8fb3ff;--warn-bg:#3d3210;--warn-fg:#ffe08a;--err-bg:#3d1616;--err-fg:#ffb3b3;--border:#3a3f46}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:30rem;margin:3rem auto;padding:2rem;background:var(--card);border:1px solid var(--border);border-radius:.75rem}
h1{font-size:1.4rem;margin:0 0 1rem}
p{margin:.5rem 0}
.muted{color:var(--muted);font-size:.92rem}
label{display:block;font-weight:600;margin:1rem 0 .3rem}
input[type=email],input[type=password],select{width:100%;padding:.6rem;font:inherit;color:inherit;background:var(--bg);border:1px solid var(--border);border-radius:.4rem}
input:focus-visible,select:focus-visible,button:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.actions{display:flex;gap:.75rem;margin-top:1.5rem}
button{flex:1;padding:.7rem 1rem;font:inherit;font-weight:600;border-radius:.4rem;border:1px solid var(--accent);cursor:pointer}
button.primary{background:var(--accent);color:var(--card)}
button.secondary{background:transparent;color:var(--accent)}
.notice{padding:.75rem 1rem;border-radius:.4rem;margin:1rem 0}
.warning{background:var(--warn-bg);color:var(--warn-fg)}
.error{background:var(--err-bg);color:var(--err-fg)}
ul.scopes{padding-left:1.2rem}
ul.scopes li{margin:.25rem 0}
code{font-size:.9em;word-break:break-all}
`;
const CSS_HASH = createHash('sha256').update(CSS).digest('base64');

/** A whole page: the shared head and stylesheet around `body`. */
export function layout(title: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title} · Lectern</title>
<style>${raw(CSS)}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`;
}

/**
 * The security headers every page gets: no framing (clickjacking defence for the login and
 * consent pages), no caching of pages that carry CSRF tokens, and a CSP that allows only our
 * inline stylesheet. `formAction`, when given, restricts where forms may post (and redirect to).
 */
export function pageHeaders(options: { formAction?: readonly string[] } = {}): Record<string, string> {
  const csp = [
    "default-src 'none'",
    `style-src 'sha256-${CSS_HASH}'`,
    "img-src 'self' data:",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ];
  if (options.formAction) csp.push(`form-action ${options.formAction.join(' ')}`);
  return {
    'Content-Security-Policy': csp.join('; '),
    'X-Frame-Options': 'DENY',
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
  };
}

/** Sends a page with its status and the security headers. */
export async function sendPage(
  c: Context,
  status: number,
  title: string,
  body: Html,
  options: { formAction?: readonly string[]; headers?: Record<string, string> } = {},
): Promise<Response> {
  const content = await layout(title, body);
  return c.html(content, status as 200, { ...pageHeaders(options), ...options.headers });
}
