import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

/** An HTML fragment from `hono/html` (interpolations are escaped). */
export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

// Our own small stylesheet, inline and allowed by its hash: no external resources at all.
const CSS = `
:root{color-scheme:light dark;--fg:#1b1f24;--bg:#f6f7f9;--card:#fff;--muted:#5b6470;--accent:#1f4b99;--warn-bg:#fff4d6;--warn-fg:#6b4a00;--err-bg:#fde8e8;--err-fg:#8a1c1c;--ok-bg:#e3f4e8;--ok-fg:#1d5b2c;--border:#d5d9df}
@media (prefers-color-scheme:dark){:root{--fg:#e8eaed;--bg:#15171a;--card:#1f2226;--muted:#a3abb5;--accent:#8fb3ff;--warn-bg:#3d3210;--warn-fg:#ffe08a;--err-bg:#3d1616;--err-fg:#ffb3b3;--ok-bg:#12301b;--ok-fg:#a8e6b8;--border:#3a3f46}}
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
button.link{flex:none;padding:0;border:0;background:none;color:var(--accent);font-weight:400;text-decoration:underline}
form.switch{margin-top:1.5rem}
.notice{padding:.75rem 1rem;border-radius:.4rem;margin:1rem 0}
.warning{background:var(--warn-bg);color:var(--warn-fg)}
.error{background:var(--err-bg);color:var(--err-fg)}
ul.scopes{padding-left:1.2rem}
ul.scopes li{margin:.25rem 0}
code{font-size:.9em;word-break:break-all}
main.wide{max-width:64rem;margin:1.5rem auto}
@media (max-width:40rem){main,main.wide{margin:0;border-radius:0;border-width:0;padding:1.25rem}}
a{color:var(--accent)}
a:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
nav.top{display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:center;margin:-.5rem 0 1.25rem;padding-bottom:.75rem;border-bottom:1px solid var(--border)}
nav.top .spacer{flex:1}
nav.top a[aria-current=page]{font-weight:700;text-decoration:none}
h2{font-size:1.15rem;margin:1.75rem 0 .5rem}
input[type=text],input[type=url],textarea{width:100%;padding:.6rem;font:inherit;color:inherit;background:var(--bg);border:1px solid var(--border);border-radius:.4rem}
textarea{min-height:6rem;font-family:ui-monospace,monospace;font-size:.92rem}
input:focus-visible,textarea:focus-visible,a:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
[aria-invalid=true]{border-color:var(--err-fg);border-width:2px}
.field-error{color:var(--err-fg);font-size:.92rem;margin:.3rem 0 0}
.hint{color:var(--muted);font-size:.92rem;margin:.3rem 0 0}
fieldset{border:1px solid var(--border);border-radius:.4rem;padding:.5rem 1rem;margin:1rem 0 0}
legend{font-weight:600;padding:0 .3rem}
label.check{display:flex;gap:.6rem;align-items:baseline;font-weight:400;margin:.5rem 0}
.table-wrap{overflow-x:auto}
table{width:100%;border-collapse:collapse;margin:.5rem 0}
th,td{text-align:left;padding:.55rem .5rem;border-bottom:1px solid var(--border);vertical-align:top}
th{font-size:.92rem;color:var(--muted)}
form.inline{display:inline}
form.inline button,.actions.start button,button.small{flex:none}
button.small{padding:.35rem .7rem;font-size:.92rem}
button.danger{background:transparent;color:var(--err-fg);border-color:var(--err-fg)}
.success{background:var(--ok-bg);color:var(--ok-fg)}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.35rem 1.25rem;margin:1rem 0}
dt{font-weight:600}
dd{margin:0}
td ul{margin:0;padding-left:1.1rem}
@media (max-width:40rem){table.stack thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}table.stack tr{display:block;padding:.5rem 0;border-bottom:1px solid var(--border)}table.stack td{display:block;border:0;padding:.2rem 0}table.stack td[data-label]::before{content:attr(data-label) ": ";font-weight:600;color:var(--muted)}}
.secret{display:block;padding:.6rem;background:var(--bg);border:1px dashed var(--border);border-radius:.4rem;font-size:1rem;user-select:all}
`;
const CSS_HASH = createHash('sha256').update(CSS).digest('base64');

/** A whole page: the shared head and stylesheet around `body`. */
function layout(title: string, body: Html, options: { wide?: boolean } = {}): Html {
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
<main${options.wide ? raw(' class="wide"') : ''}>
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
function pageHeaders(options: { formAction?: readonly string[] } = {}): Record<string, string> {
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
  options: { formAction?: readonly string[]; headers?: Record<string, string>; wide?: boolean } = {},
): Promise<Response> {
  const content = await layout(title, body, { wide: options.wide });
  return c.html(content, status as 200, { ...pageHeaders(options), ...options.headers });
}
