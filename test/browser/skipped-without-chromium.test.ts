/**
 * Without Chromium the browser tests are counted as skipped, with the way to enable them, rather
 * than vanishing from the summary inside a skipped suite. Every test file that drives
 * Chromium goes through test/support/chromium.ts; this runs them all without it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const TEST_ROOT = fileURLToPath(new URL('..', import.meta.url));
const SELF = 'browser/skipped-without-chromium.test.ts';
// An import line of the helper (this file names it only in this pattern, and is left out anyway:
// running itself would recurse).
const USES_HELPER =
  /^} from '\.\.\/support\/chromium\.ts';$|^import .* from '\.\.\/support\/chromium\.ts';$/m;

/** The test files that use the Chromium helper, and how many tests each declares. */
function browserTestFiles(): { file: string; tests: number }[] {
  return readdirSync(TEST_ROOT, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts') && name !== SELF)
    .map((name) => ({ file: `${TEST_ROOT}${name}`, text: readFileSync(`${TEST_ROOT}${name}`, 'utf8') }))
    .filter(({ text }) => USES_HELPER.test(text))
    .map(({ file, text }) => ({ file, tests: text.match(/^\s+it\(/gm)?.length ?? 0 }));
}

describe('browser tests without Chromium', () => {
  it('none launches its own Chromium or loads axe-core itself', () => {
    for (const name of readdirSync(TEST_ROOT, { recursive: true, encoding: 'utf8' })) {
      if (!name.endsWith('.ts') || name === 'support/chromium.ts' || name === SELF) continue;
      const text = readFileSync(`${TEST_ROOT}${name}`, 'utf8');
      assert.doesNotMatch(text, /axe\.min\.js|chromium\.launch|executablePath/, name);
    }
  });

  // The files and their skips are the same on both engines: counted once, on SQLite.
  const once = process.env.LECTERN_TEST_ENGINE === 'postgres' ? 'counted once, on SQLite' : false;

  // The files load in one process (each of its own would load the whole app again, one after
  // another: minutes on a loaded machine), and the guard is for a child that hangs, not a slow one.
  const guard = { skip: once, timeout: 10 * 60_000 };

  it('count as skipped, every one of them, and say how to install it', guard, async () => {
    const files = browserTestFiles();
    assert.ok(files.length >= 7, files.map((f) => f.file).join('\n'));
    const expected = files.reduce((sum, f) => sum + f.tests, 0);
    const child = spawn(
      process.execPath,
      ['--test', '--test-isolation=none', '--test-reporter=spec', ...files.map((f) => f.file)],
      {
        env: {
          PATH: process.env.PATH ?? '',
          LECTERN_TEST_CHROMIUM: '/nonexistent/chromium',
          ...(process.env.NODE_COMPILE_CACHE ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE } : {}),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    const code = await new Promise((resolve) => child.on('close', resolve));
    assert.equal(code, 0, output);
    assert.match(output, new RegExp(`ℹ tests ${expected}\\n`));
    assert.match(output, new RegExp(`ℹ skipped ${expected}\\n`));
    assert.match(output, /ℹ pass 0\n/);
    assert.match(
      output,
      /# Chromium not found at \/nonexistent\/chromium: install it \(apt-get install -y chromium\) or set LECTERN_TEST_CHROMIUM to its path/,
    );
  });
});
