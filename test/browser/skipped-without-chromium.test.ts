/**
 * Without Chromium the browser tests are counted as skipped, with the way to enable them, rather
 * than vanishing from the summary inside a skipped suite (issue #16).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const FILE = fileURLToPath(new URL('./landing.test.ts', import.meta.url));

describe('browser tests without Chromium', () => {
  it('count as skipped and say how to install it', async () => {
    const child = spawn(process.execPath, ['--test', '--test-reporter=spec', FILE], {
      env: { PATH: process.env.PATH ?? '', LECTERN_TEST_CHROMIUM: '/nonexistent/chromium' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    const code = await new Promise((resolve) => child.on('close', resolve));
    assert.equal(code, 0, output);
    assert.match(output, /ℹ tests 2\n/);
    assert.match(output, /ℹ skipped 2\n/);
    assert.match(output, /ℹ pass 0\n/);
    assert.match(
      output,
      /# Chromium not found at \/nonexistent\/chromium: install it \(apt-get install -y chromium\) or set LECTERN_TEST_CHROMIUM to its path/,
    );
  });
});
