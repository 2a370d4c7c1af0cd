/**
 * Whether an Accept header prefers an HTML page over JSON: text/html (or application/xhtml+xml)
 * is named with a quality above zero and at least that of any JSON type it names. Browsers'
 * navigations send `text/html,…,*\/*;q=0.8`; API clients send JSON types, `*\/*` or nothing,
 * and keep getting JSON.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  let html = 0;
  let json = 0;
  for (const part of accept.split(',').slice(0, 32)) {
    const [type = '', ...params] = part.trim().toLowerCase().split(';');
    const q = qualityOf(params);
    if (type === 'text/html' || type === 'application/xhtml+xml') html = Math.max(html, q);
    else if (type === 'application/json' || type.endsWith('+json')) json = Math.max(json, q);
  }
  return html > 0 && html >= json;
}

function qualityOf(params: string[]): number {
  for (const p of params) {
    const [key, value] = p.trim().split('=');
    if (key === 'q') {
      const q = Number(value);
      return Number.isFinite(q) && q >= 0 && q <= 1 ? q : 0;
    }
  }
  return 1;
}
