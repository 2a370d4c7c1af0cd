import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';

/**
 * The Chromium the browser tests drive: Debian's package (never a downloaded browser), or the
 * binary LECTERN_TEST_CHROMIUM names.
 */
const CHROMIUM = process.env.LECTERN_TEST_CHROMIUM || '/usr/bin/chromium';

/**
 * Why the browser tests skip, or false when Chromium is there. Put on each `it` (not on the
 * `describe`): node:test counts skipped tests but not the tests of a skipped suite, and a run
 * without Chromium must say how many browser tests it did not run.
 */
export const chromiumSkip: string | false = existsSync(CHROMIUM)
  ? false
  : `Chromium not found at ${CHROMIUM}: install it (apt-get install -y chromium) or set LECTERN_TEST_CHROMIUM to its path`;

/**
 * The markup checks (axe, screenshots, the 375 px check) look at HTML that is the same on both
 * engines, so they run once, on SQLite; on PostgreSQL the journeys run without them.
 */
const MARKUP_CHECKS = process.env.LECTERN_TEST_ENGINE !== 'postgres';

/**
 * Why a browser test that runs once, on SQLite, skips (no Chromium, or the PostgreSQL run), or
 * false: tests of markup alone, and journeys whose database paths the HTTP tests already run on
 * both engines. The journeys through the console, the school site and the learning area run on
 * both (`chromiumSkip`).
 */
export const onceSkip: string | false =
  chromiumSkip ||
  (MARKUP_CHECKS ? false : 'runs once, on SQLite: the HTTP tests run its database paths on both engines');

/** Headless Chromium with the flags CI containers need. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

const AXE = readFileSync(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * Runs axe-core in the page and fails on serious or critical violations. Evaluated through the
 * DevTools protocol, so the page's CSP (no scripts) stays in force. `within` (a CSS selector)
 * limits the check to our own markup inside a page a third party renders (Scalar, GraphiQL).
 */
export async function assertAccessible(page: Page, name: string, within?: string): Promise<void> {
  if (!MARKUP_CHECKS) return;
  await page.evaluate(AXE);
  const context = within === undefined ? 'document' : JSON.stringify(within);
  const violations = (await page.evaluate(
    `axe.run(${context}, { resultTypes: ['violations'] }).then((r) => r.violations)`,
  )) as AxeViolation[];
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map(
      (v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    ),
    [],
    `accessibility of ${name}`,
  );
}

/** Where every browser test saves its screenshots (gitignored; looked at before a change lands). */
export const SCREENSHOTS = 'test-artifacts/screenshots';

/**
 * The checks every page for people gets, in one call: axe (serious and critical violations
 * fail), a full-page screenshot at desktop width, then at a 375 px phone width a screenshot and
 * the assertion that nothing scrolls sideways; the viewport is put back afterwards. On SQLite
 * only (`MARKUP_CHECKS`). Screenshots
 * go to `SCREENSHOTS/<prefix>-<name>-{desktop,phone}.png`.
 */
export async function checkPage(page: Page, prefix: string, name: string): Promise<void> {
  if (!MARKUP_CHECKS) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  const original = page.viewportSize() ?? { width: 1280, height: 800 };
  await assertAccessible(page, name);
  await page.screenshot({ path: `${SCREENSHOTS}/${prefix}-${name}-desktop.png`, fullPage: true });
  await page.setViewportSize({ width: 375, height: 740 });
  try {
    const overflow = (await page.evaluate(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    )) as number;
    assert.ok(overflow <= 0, `${name} scrolls sideways by ${overflow} px at 375 px wide`);
    await page.screenshot({ path: `${SCREENSHOTS}/${prefix}-${name}-phone.png`, fullPage: true });
  } finally {
    await page.setViewportSize(original);
  }
}

/**
 * Signs in on the sign-in page `page` shows, as a person does: the email, the password, "Sign in";
 * resolves once the browser has left `/login` (or reached where `lands` says).
 */
export async function signInOnPage(
  page: Page,
  email: string,
  password: string,
  lands: (url: URL) => boolean = (url) => url.pathname !== '/login',
): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await Promise.all([page.waitForURL(lands), page.getByRole('button', { name: 'Sign in' }).click()]);
}
