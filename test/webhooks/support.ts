import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createWebhookWorker, type WebhookWorker, type WorkerOptions } from '../../src/webhooks/worker.ts';
import type { api } from '../admin/api.ts';
import type { TestApp } from '../support/app.ts';

/**
 * A hand-moved clock: tests advance it instead of waiting. It starts a minute ahead of real time,
 * so events recorded (on real time) during a test are already due on it.
 */
export class FakeClock {
  now: number;
  constructor(start = Date.now() + 60_000) {
    this.now = start;
  }
  advance(ms: number): number {
    this.now += ms;
    return this.now;
  }
  readonly read = () => this.now;
}

/** A worker on the test app's database, on the fake clock, with jitter pinned to none. */
export function testWorker(t: TestApp, clock: FakeClock, extra: Partial<WorkerOptions> = {}): WebhookWorker {
  return createWebhookWorker({
    db: t.runtime.db,
    logger: t.runtime.logger,
    config: t.config,
    mailer: t.runtime.mailer,
    now: clock.read,
    random: () => 0.5,
    ...extra,
  });
}

/** Adds an endpoint through the admin API; returns its id and secret. */
export async function addEndpoint(
  call: ReturnType<typeof api>,
  url: string,
  eventTypes: string[] = ['*'],
): Promise<{ id: string; secret: string }> {
  const r = await call('POST', '/api/v1/webhook-endpoints', { url, event_types: eventTypes });
  if (r.status !== 201) throw new Error(`endpoint not created: ${r.status} ${JSON.stringify(r.body)}`);
  return { id: r.body.id, secret: r.body.secret };
}

/**
 * A receiver that accepts every TCP connection and then never reads or answers: the endpoint
 * that costs a sender its whole timeout. Counts connections and notes when the first came.
 */
export class HangingReceiver {
  connections = 0;
  firstAt: number | undefined;
  url = '';
  private readonly sockets = new Set<Socket>();
  private readonly server: Server = createServer((socket) => {
    this.connections++;
    this.firstAt ??= Date.now();
    this.sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => this.sockets.delete(socket));
  });

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Drops every held connection (the senders see a reset at once) and stops listening. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * An HTTP receiver that holds every request until `release()`: a delivery stays in flight for as
 * long as a test needs, with no timing to tune.
 */
export class GatedReceiver {
  readonly arrived: string[] = [];
  url = '';
  private held: Array<() => void> = [];
  private waiting: Array<() => void> = [];
  private readonly server = createHttpServer((req, res) => {
    req.resume();
    this.arrived.push(req.url ?? '/');
    this.held.push(() => res.writeHead(204).end());
    for (const notify of this.waiting.splice(0)) notify();
  });

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Resolves once a request is being held. */
  async firstRequest(): Promise<void> {
    if (this.held.length === 0) await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** Answers 204 to every request held. */
  release(): void {
    for (const answer of this.held.splice(0)) answer();
  }

  async close(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Polls (real time) until `done`, or fails after `ms` saying what was awaited. */
export async function waitUntil(
  done: () => boolean | Promise<boolean>,
  ms: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(10);
  }
}
