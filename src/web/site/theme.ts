/**
 * A school's look on its site: the stylesheet of the site's own parts and the school's colours
 * and font as custom properties, in one style block the page's CSP allows by its hash. Only
 * values that pass a strict check reach the CSS (a #rrggbb colour, a font from a fixed list of
 * system stacks), so nothing stored can inject CSS.
 */
import type { PublicSite } from '../../domain/catalog/public-catalogue.ts';

const HEX = /^#[0-9a-f]{6}$/i;

// The layout's own link colours (layout.ts), kept when a school's colour would be unreadable.
const LIGHT = { card: '#ffffff', accent: '#1f4b99' };
const DARK = { card: '#1f2226', accent: '#8fb3ff' };

/** Font stacks by the theme's font name: installed fonts only, nothing is downloaded. */
const STACKS: Readonly<Record<string, string>> = {
  'system-ui': 'system-ui,-apple-system,"Segoe UI",Roboto,sans-serif',
  serif: 'Georgia,"Times New Roman",serif',
  'sans-serif': '"Helvetica Neue",Arial,sans-serif',
  monospace: 'ui-monospace,Menlo,Consolas,monospace',
  Inter: 'Inter,system-ui,sans-serif',
  Roboto: 'Roboto,system-ui,sans-serif',
  'Open Sans': '"Open Sans",system-ui,sans-serif',
  Lato: 'Lato,system-ui,sans-serif',
  Merriweather: 'Merriweather,Georgia,serif',
  'Source Sans 3': '"Source Sans 3",system-ui,sans-serif',
};

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const v = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The WCAG contrast ratio of two #rrggbb colours. */
function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** A colour that passed the check, or the fallback. */
function color(value: string, fallback: string): string {
  return HEX.test(value) ? value.toLowerCase() : fallback;
}

// The site's own parts: the school's header band, course cards, the hero, link buttons, the
// honeypot field of public forms. Colours only through the layout's variables and the theme's.
const SITE_CSS = `
header.site{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1.25rem;margin:0 0 1.5rem;padding:.75rem 1rem;border-radius:.5rem;background:var(--brand);color:var(--brand-fg)}
header.site a,header.site .who{color:var(--brand-fg)}
header.site a:focus-visible,header.site button:focus-visible{outline-color:var(--brand-fg)}
header.site .school{display:flex;align-items:center;gap:.5rem;font-weight:700;font-size:1.15rem;text-decoration:none}
header.site .school img{height:2rem;width:auto;border-radius:.25rem}
header.site nav{display:flex;flex-wrap:wrap;align-items:center;gap:.25rem 1rem}
header.site nav a[aria-current=page]{font-weight:700;text-decoration-thickness:3px}
header.site .spacer{flex:1}
header.site button{color:var(--brand-fg);border-color:var(--brand-fg);background:transparent}
footer.site{margin-top:2.5rem;padding-top:1rem;border-top:1px solid var(--border);color:var(--muted);font-size:.92rem}
footer.site ul{list-style:none;padding:0;margin:.25rem 0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
.hero{margin:0 0 1.5rem;padding:1.25rem 1.25rem 1.25rem 1rem;border-left:.4rem solid var(--brand-accent);background:var(--bg);border-radius:.4rem}
.hero h2{font-size:1.5rem;margin:0 0 .5rem}
ul.courses{list-style:none;padding:0;margin:.5rem 0;display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,16rem),1fr));gap:1rem}
ul.courses>li{border:1px solid var(--border);border-radius:.5rem;padding:1rem;display:flex;flex-direction:column;gap:.35rem}
ul.courses h3{font-size:1.05rem;margin:0}
ul.items{list-style:none;padding:0}
ul.items>li{border-bottom:1px solid var(--border);padding:.75rem 0}
ul.items h2,ul.items h3{font-size:1.05rem;margin:0 0 .25rem}
.price{font-weight:700}
.badge{display:inline-block;padding:0 .4rem;border:1px solid var(--border);border-radius:.3rem;font-size:.85rem}
a.button{display:inline-block;padding:.7rem 1rem;border-radius:.4rem;background:var(--accent);color:var(--card);font-weight:600;text-decoration:none;border:1px solid var(--accent)}
a.button.secondary{background:transparent;color:var(--accent)}
.offer{display:flex;flex-wrap:wrap;align-items:center;gap:.75rem 1.25rem;margin:1rem 0;padding:1rem;border:1px solid var(--border);border-radius:.5rem}
.offer form{margin:0}
.offer button{flex:none}
ol.lectures{padding-left:1.4rem;margin:.25rem 0 1rem}
ol.lectures li{margin:.3rem 0}
.text p,.text li{overflow-wrap:anywhere}
main img{max-width:100%;height:auto}
form.site-form{max-width:36rem}
form.site-form textarea{font-family:inherit;font-size:inherit}
main input[aria-invalid=true],main textarea[aria-invalid=true]{border-color:var(--err-fg);border-width:2px}
ul.courses+p{margin-top:1rem}
.hp{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}
`;

/** The style block of a school's site pages. */
export function siteStyle(site: PublicSite): string {
  const primary = color(site.appearance.primaryColor, LIGHT.accent);
  const accent = color(site.appearance.accentColor, '#f2a93b');
  const onBrand = contrast(primary, '#ffffff') >= 4.5 ? '#ffffff' : '#111111';
  // Links and buttons take the school's colour where it reads well on the page's background.
  const lightLinks = contrast(primary, LIGHT.card) >= 4.5 ? primary : LIGHT.accent;
  const darkLinks = contrast(primary, DARK.card) >= 4.5 ? primary : DARK.accent;
  const font = STACKS[site.appearance.font] ?? STACKS['system-ui'];
  return `:root{--brand:${primary};--brand-fg:${onBrand};--brand-accent:${accent};--accent:${lightLinks}}
@media (prefers-color-scheme:dark){:root{--accent:${darkLinks}}}
body{font-family:${font}}${SITE_CSS}`;
}
