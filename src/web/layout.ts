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
input[type=number],input[type=date],input[type=datetime-local]{width:100%;max-width:100%;padding:.6rem;font:inherit;color:inherit;background:var(--bg);border:1px solid var(--border);border-radius:.4rem}
.affixed{display:flex;align-items:center;gap:.5rem}.affixed input{flex:1;min-width:0}.affix{font-weight:600}dd{overflow-wrap:anywhere;min-width:0}dd dl{margin:0 0 .5rem}dd ol{margin:0;padding-left:1.2rem}
input[aria-invalid=true],select[aria-invalid=true]{border-color:var(--err-fg);border-width:2px}
fieldset{border:1px solid var(--border);border-radius:.4rem;padding:.5rem 1rem;margin:1rem 0 0}
legend{font-weight:600;padding:0 .3rem}
label.check{display:flex;gap:.6rem;align-items:baseline;font-weight:400;margin:.5rem 0}
.table-wrap{overflow-x:auto;position:relative}
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
input[type=search]{width:100%;padding:.6rem;font:inherit;color:inherit;background:var(--bg);border:1px solid var(--border);border-radius:.4rem}
form.filters .filter-fields{display:grid;grid-template-columns:repeat(auto-fill,minmax(13rem,1fr));gap:0 1rem}
dl.details{grid-template-columns:minmax(0,max-content) minmax(0,1fr)}dl.details dd{overflow-wrap:anywhere;min-width:0}
@media (max-width:40rem){dl.details{grid-template-columns:minmax(0,1fr)}dl.details dd{margin-bottom:.5rem}}
nav.sub{display:flex;flex-wrap:wrap;gap:.25rem 1rem;margin:-.5rem 0 1.25rem}nav.sub a[aria-current=page]{font-weight:700;text-decoration:none}
.fields{display:flex;flex-wrap:wrap;gap:0 1rem}.fields>div{flex:1 1 12rem;min-width:0}
ul.quick{display:flex;flex-wrap:wrap;gap:.5rem 1.25rem;list-style:none;padding:0;margin:1rem 0}ul.quick a[aria-current]{font-weight:700;text-decoration:none}
caption{text-align:left;font-weight:600;padding:.25rem 0}
figure.chart{margin:1rem 0}figure.chart svg{display:block;width:100%;height:auto;font-size:13px}.chart .bar{fill:var(--accent)}.chart text{fill:var(--muted)}.chart line{stroke:var(--border)}
.chart-pair{display:grid;grid-template-columns:repeat(auto-fit,minmax(18rem,1fr));gap:0 2rem;align-items:start}th .hint{font-weight:400}
.row-actions{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;margin:.4rem 0}
section.block{border:1px solid var(--border);border-radius:.5rem;padding:0 1rem .5rem;margin:1rem 0}
section.block h2{margin-top:.75rem}
ol.items{list-style:none;padding:0;margin:.5rem 0}ol.items>li{padding:.5rem 0;border-top:1px solid var(--border)}
.badge{display:inline-block;padding:0 .45rem;border-radius:.3rem;font-size:.85rem;background:var(--ok-bg);color:var(--ok-fg)}
.choice{display:flex;gap:.6rem;align-items:center;margin:.4rem 0}
input[type=file]{max-width:100%;font:inherit}
fieldset{min-width:0}
.learn{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,17rem);gap:1.5rem;align-items:start}
@media (max-width:48rem){.learn{grid-template-columns:minmax(0,1fr)}}
ol.outline{list-style:none;padding:0;margin:0}ol.outline ol{list-style:none;padding:0 0 0 .25rem;margin:.25rem 0 .75rem}
ol.outline a[aria-current=page]{font-weight:700}
ul.cards{list-style:none;padding:0}ul.cards>li{border:1px solid var(--border);border-radius:.5rem;padding:1rem;margin:.75rem 0}ul.cards h2{margin-top:0}
.field-ok{color:var(--ok-fg);font-size:.92rem;margin:.3rem 0 0}
progress{width:100%;height:.8rem;accent-color:var(--accent)}
video{display:block;width:100%;background:#000;border-radius:.4rem}
.prose{overflow-wrap:anywhere;white-space:pre-line}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
.pager{display:flex;flex-wrap:wrap;justify-content:space-between;gap:.75rem 1.5rem;margin-top:1.5rem}
a.button{display:inline-block;padding:.6rem 1.1rem;border-radius:.4rem;background:var(--accent);color:var(--card);font-weight:600;text-decoration:none}
`;
const CSS_HASH = createHash('sha256').update(CSS).digest('base64');

/** A whole page: the shared head and stylesheet around `body`. */
function layout(title: string, body: Html, options: { wide?: boolean; style?: string } = {}): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title} · Lectern</title>
<style>${raw(CSS)}</style>
${
  options.style
    ? html`<style>${raw(options.style)}</style>
`
    : ''
}</head>
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
function pageHeaders(
  options: { formAction?: readonly string[]; directives?: readonly string[]; style?: string } = {},
): Record<string, string> {
  // A page's own style block (a school's theme) is allowed by its hash beside the stylesheet's.
  const extra = options.style
    ? ` 'sha256-${createHash('sha256').update(options.style).digest('base64')}'`
    : '';
  const csp = [
    "default-src 'none'",
    `style-src 'sha256-${CSS_HASH}'${extra}`,
    "img-src 'self' data:",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ];
  if (options.formAction) csp.push(`form-action ${options.formAction.join(' ')}`);
  // A page that needs more (the course player's script and media) names it; others get nothing.
  if (options.directives) csp.push(...options.directives);
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
  options: {
    formAction?: readonly string[];
    directives?: readonly string[];
    headers?: Record<string, string>;
    wide?: boolean;
    /** An extra style block (built by the caller from validated values only). */
    style?: string;
  } = {},
): Promise<Response> {
  const content = await layout(title, body, { wide: options.wide, style: options.style });
  return c.html(content, status as 200, { ...pageHeaders(options), ...options.headers });
}
