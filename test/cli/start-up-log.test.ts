/**
 * What `lectern serve` writes while it starts: operators ship it to log stores, so no secret,
 * not even the documented demo password, belongs there.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { openDatabase } from '../../src/store/database.ts';
import { createTestDatabase } from '../support/database.ts';
import { cliEnv, spawnLectern } from './run.ts';

/** Starts `lectern serve`, waits until it listens, stops it, and returns all it wrote. */
async function startAndStop(
  env: Record<string, string>,
): Promise<{ stdout: string; stderr: string; lines: Array<Record<string, unknown>> }> {
  const child = spawnLectern(['serve'], env);
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d) => {
    stderr += d;
  });
  const listening = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      stdout += d;
      if (stdout.includes('"msg":"lectern listening"')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`exited early with ${code}: ${stderr}`)));
  });
  await listening;
  const closed = once(child, 'close');
  child.kill('SIGTERM');
  await closed;
  const lines = stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { stdout, stderr, lines };
}

describe('start-up log', () => {
  it('a seeded start names the demo accounts but never prints the demo password', async () => {
    const database = await createTestDatabase();
    try {
      const run = await startAndStop(cliEnv(database, { PORT: '0', SEED_DEMO: 'true', LOG_LEVEL: 'debug' }));
      assert.doesNotMatch(run.stdout + run.stderr, /demo-password/);
      const seeded = run.lines.find((l) => l.msg === 'demo data created; demo passwords are in the README');
      assert.ok(seeded, run.stdout);
      assert.deepEqual(seeded.demoAccounts, [
        'owner@example.com',
        'lecturer@example.com',
        'student@example.com',
        'other-owner@example.com',
        'other-lecturer@example.com',
        'other-student@example.com',
      ]);
      // The list is the seed's own: exactly the users it created.
      const db = openDatabase(database.options);
      try {
        const emails = (await db.selectFrom('users').select('email').execute()).map((u) => u.email);
        assert.deepEqual(emails.sort(), [...(seeded.demoAccounts as string[])].sort());
      } finally {
        await db.destroy();
      }
    } finally {
      await database.drop();
    }
  });
});
