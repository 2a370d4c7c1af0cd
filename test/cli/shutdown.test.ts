import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import type { AppEnv } from '../../src/http/context.ts';
import { listen } from '../../src/runtime.ts';
import { createTestApp } from '../support/app.ts';
import { createTestDatabase } from '../support/database.ts';
import { cliEnv, spawnLectern, untilListening } from './run.ts';

const BIN = fileURLToPath(new URL('../../bin/lectern.js', import.meta.url));

/** A fresh connection (no keep-alive pool): resolves with the status, rejects with the socket error. */
function freshGet(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
  });
}

/**
 * Starts `serve` through bin/lectern.js, checks it answers, sends `stop`, and asserts the wrapper
 * exits 0 after the server logged "stopped" and no longer listens.
 */
async function stopsThroughWrapper(
  options: { detached: boolean },
  stop: (wrapper: ChildProcess) => void,
): Promise<void> {
  const database = await createTestDatabase();
  try {
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: cliEnv(database, { PORT: '0' }),
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: options.detached,
    });
    const served = await untilListening(child);
    assert.equal(await freshGet(`${served.url}/healthz`), 200);
    const exited = once(child, 'close');
    stop(child);
    const [code, signal] = await exited;
    assert.equal(signal, null);
    assert.equal(code, 0, served.stderr());
    assert.equal(served.lines.at(-1)?.msg, 'stopped');
    await assert.rejects(freshGet(`${served.url}/healthz`), { code: 'ECONNREFUSED' });
  } finally {
    await database.drop();
  }
}

describe('graceful shutdown', () => {
  it('in process: finishes the in-flight request, refuses new connections, then resolves', async () => {
    const t = await createTestApp();
    try {
      let release!: () => void;
      const gate = new Promise<void>((r) => {
        release = r;
      });
      let started!: () => void;
      const inFlight = new Promise<void>((r) => {
        started = r;
      });
      const app = new Hono<AppEnv>();
      app.get('/slow', async (c) => {
        started();
        await gate;
        return c.json({ finished: true });
      });
      app.route('/', t.app);
      const server = await listen(app, '127.0.0.1', 0);
      assert.equal(await freshGet(`${server.url}/healthz`), 200);

      const slow = fetch(`${server.url}/slow`);
      await inFlight;
      let stopped = false;
      const stopping = server.shutdown().then(() => {
        stopped = true;
      });
      await assert.rejects(freshGet(`${server.url}/healthz`), { code: 'ECONNREFUSED' });
      assert.equal(stopped, false, 'shutdown waits for the in-flight request');
      release();
      const res = await slow;
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { finished: true });
      await stopping;
      assert.equal(stopped, true);
    } finally {
      await t.close();
    }
  });

  it('as a process: SIGTERM after serving exits 0 and logs "stopped"', async () => {
    const database = await createTestDatabase();
    try {
      const child = spawnLectern(['serve'], cliEnv(database, { PORT: '0' }));
      const served = await untilListening(child);
      const health = await fetch(`${served.url}/healthz`);
      assert.equal(health.status, 200);
      assert.deepEqual(await health.json(), { status: 'ok' });
      // 'close', not 'exit': exit can come before the last stdout data has been read.
      const exited = once(child, 'close');
      child.kill('SIGTERM');
      const [code, signal] = await exited;
      assert.equal(signal, null);
      assert.equal(code, 0, served.stderr());
      const messages = served.lines.map((l) => l.msg);
      assert.ok(messages.includes('shutting down: finishing in-flight requests'));
      assert.equal(messages.at(-1), 'stopped');
      assert.equal(
        served.lines.find((l) => l.msg === 'shutting down: finishing in-flight requests')?.signal,
        'SIGTERM',
      );
    } finally {
      await database.drop();
    }
  });

  // A wrapper that does not forward the signal dies alone and its server keeps the pipes open: no
  // 'close' ever comes, and the timeout fails the test.
  it('through bin/lectern.js (npx lectern): SIGTERM to the wrapper alone stops the server it started', {
    timeout: 30_000,
  }, async () => {
    // The wrapper's pid only, as `kill <pid>` or a process manager sends it.
    await stopsThroughWrapper({ detached: false }, (child) => child.kill('SIGTERM'));
  });

  it('through bin/lectern.js: Ctrl-C to the whole process group, as a terminal sends it, drains and exits 0', {
    timeout: 30_000,
  }, async () => {
    // Its own process group, as a terminal's foreground job; SIGINT reaches wrapper and server.
    await stopsThroughWrapper({ detached: true }, (child) => process.kill(-child.pid!, 'SIGINT'));
  });
});
