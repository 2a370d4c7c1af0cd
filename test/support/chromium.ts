import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
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
