import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createConnection } from 'node:net';
import { freePort } from './ports.ts';

/** Whether a `redis-server` binary is on PATH (CI installs one; see .ci/run). */
export const REDIS_SERVER_AVAILABLE = spawnSync('redis-server', ['--version']).status === 0;

/**
 * A redis-server child process of this test alone, on its own port, that the test may kill and
 * start again (the shared Redis must never be stopped). Nothing is persisted: a restart is empty.
 */
export interface OwnRedis {
  readonly url: string;
  readonly port: number;
  /** Kills the process (SIGKILL: an outage, not a clean shutdown) and waits for it to exit. */
  kill(): Promise<void>;
  /** Starts it again on the same port and waits until it accepts connections. */
  start(): Promise<void>;
  /** The running process's id (e.g. to SIGSTOP it: a Redis that accepts but never answers). */
  pid(): number;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Starts a private redis-server; stop it with `kill()` (also registered to run on exit). */
export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    for (let i = 0; i < 100; i++) {
      if (await accepts(port)) return;
      if (child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`redis-server did not start on port ${port}`);
  };
  const kill = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = once(running, 'exit');
    running.kill('SIGKILL');
    await exited;
  };
  process.once('exit', () => child?.kill('SIGKILL'));
  await start();
  const pid = () => {
    if (child?.pid === undefined) throw new Error('redis-server is not running');
    return child.pid;
  };
  return { url: `redis://127.0.0.1:${port}`, port, kill, start, pid };
}
