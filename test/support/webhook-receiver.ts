import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request the receiver got, with what verifying it said. */
export interface ReceivedWebhook {
  readonly path: string;
  readonly id: string;
  readonly timestamp: number;
  readonly signatures: string[];
  readonly body: string;
  readonly json: { type: string; timestamp: string; data: Record<string, unknown> };
  /** Which of the receiver's secrets produced a signature in the header (by index). */
  readonly signedBy: number[];
  /** The id was seen before on this path (a retry or replay): de-duplication would drop it. */
  readonly duplicate: boolean;
}

/** How to answer one request. `hang`: never answer (the sender must time out). */
export interface PlannedAnswer {
  status?: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  hang?: boolean;
  /** Answer after this many milliseconds (a slow receiver). */
  delayMs?: number;
}

/**
 * A local webhook receiver on 127.0.0.1 that verifies every delivery with the `standardwebhooks`
 * package, the reference implementation: `verify()` (signature and the 5-minute timestamp window)
 * when the timestamp is near real time, and its `sign()` otherwise (tests move a fake clock by
 * hours; the signature must still be the reference one). Answers follow a plan, per path.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  /** How to answer when no plan is left for the path (default 204 at once). */
  defaultAnswer: PlannedAnswer = {};
  /** Secrets to verify with; a delivery verifies if any signs it. */
  secrets: string[] = [];
  private readonly plans = new Map<string, PlannedAnswer[]>();
  private readonly seen = new Set<string>();
  private readonly hanging = new Set<ServerResponse>();
  private server = createServer((req, res) => void this.handle(req, res));
  url = '';

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Answers for the next requests to `path`, in order; afterwards 204. */
  plan(path: string, ...answers: PlannedAnswer[]): void {
    this.plans.set(path, [...(this.plans.get(path) ?? []), ...answers]);
  }

  /** Distinct webhook ids received. */
  uniqueIds(): Set<string> {
    return new Set(this.received.map((r) => r.id));
  }

  on(path: string): ReceivedWebhook[] {
    return this.received.filter((r) => r.path === path);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const path = req.url ?? '/';
    const headers = {
      'webhook-id': String(req.headers['webhook-id'] ?? ''),
      'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
      'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
    };
    const timestamp = Number(headers['webhook-timestamp']);
    const signatures = headers['webhook-signature'].split(' ').filter(Boolean);
    const signedBy: number[] = [];
    this.secrets.forEach((secret, i) => {
      const wh = new Webhook(secret);
      if (!signatures.includes(wh.sign(headers['webhook-id'], new Date(timestamp * 1000), body))) return;
      if (Math.abs(timestamp * 1000 - Date.now()) < 4 * 60_000) wh.verify(body, headers); // throws if not
      signedBy.push(i);
    });
    this.received.push({
      path,
      id: headers['webhook-id'],
      timestamp,
      signatures,
      body,
      json: JSON.parse(body),
      signedBy,
      duplicate: this.seen.has(`${path} ${headers['webhook-id']}`),
    });
    this.seen.add(`${path} ${headers['webhook-id']}`);
    const answer = this.plans.get(path)?.shift() ?? this.defaultAnswer;
    if (answer.hang) {
      this.hanging.add(res);
      return;
    }
    if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
    res.writeHead(answer.status ?? 204, answer.headers ?? {});
    res.end(answer.body);
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
