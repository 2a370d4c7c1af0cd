import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for Stripe's API on loopback, answering the calls Lectern makes the way Stripe
 * does (https://docs.stripe.com/api): form-encoded bodies, bearer secret keys, Stripe's error
 * object and statuses, and Idempotency-Key replay (https://docs.stripe.com/api/idempotent_requests:
 * the same key with the same parameters answers the first result again, with other parameters a
 * 400 `idempotency_error`). Point the real SDK at it through STRIPE_API_BASE. It also makes the
 * events Stripe would send and signs them with Stripe's scheme
 * (https://docs.stripe.com/webhooks#verify-manually: `Stripe-Signature: t=<unix>,v1=<hex
 * HMAC-SHA256(secret, "<t>.<payload>")>`).
 */

type Params = Record<string, unknown>;

export interface StandInAccount {
  readonly id: string;
  readonly secretKey: string;
  readonly webhookSecret: string;
}

interface StandInSession {
  id: string;
  object: 'checkout.session';
  mode: string;
  status: 'open' | 'complete' | 'expired';
  payment_status: 'unpaid' | 'paid' | 'no_payment_required';
  amount_subtotal: number;
  amount_total: number;
  currency: string;
  client_reference_id: string | null;
  customer_email: string | null;
  metadata: Record<string, string>;
  success_url: string;
  cancel_url: string;
  url: string | null;
  payment_intent: string | null;
  line_items: Params[];
  livemode: boolean;
  created: number;
}

/** One request as the stand-in received it. */
interface ReceivedCall {
  readonly method: string;
  readonly path: string;
  readonly account: string | undefined;
  readonly idempotencyKey: string | undefined;
  readonly params: Params;
}

export interface StripeStandIn {
  /** `http://127.0.0.1:<port>`: the value of STRIPE_API_BASE. */
  readonly base: string;
  /** Every call received, in order. */
  readonly calls: ReceivedCall[];
  readonly sessions: Map<string, StandInSession & { account: string }>;
  /** A new account with its secret key and webhook signing secret. */
  account(): StandInAccount;
  /** Pays an open session (as a buyer finishing Checkout would) and returns it. */
  pay(sessionId: string): StandInSession;
  /** A succeeded payment intent of `amount` on the account (a payment made elsewhere). */
  paymentIntent(account: StandInAccount, amount: number): string;
  /** Refunds `amount` of a payment intent as the account's owner would in Stripe's dashboard; returns its charge. */
  refundInDashboard(paymentIntent: string, amount: number): StandInCharge;
  /** The charge of a payment intent, as `charge.refunded` carries it. */
  charge(paymentIntent: string): StandInCharge;
  /** An event object, as Stripe sends it, about `object`. */
  event(type: string, object: object, account?: string): StripeEvent;
  /** Stripe-Signature for a payload at unix time `t` (default now) with `secret`. */
  sign(payload: string, secret: string, t?: number): string;
  close(): Promise<void>;
}

interface StandInCharge {
  id: string;
  object: 'charge';
  payment_intent: string;
  amount: number;
  amount_refunded: number;
  refunded: boolean;
  currency: string;
}

interface StripeEvent {
  id: string;
  object: 'event';
  type: string;
  account?: string;
  api_version: string;
  created: number;
  livemode: boolean;
  data: { object: object };
}

const rid = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

/** `a[b][0][c]=x` (Stripe's form encoding) into nested objects and arrays. */
function parseForm(body: string): Params {
  const out: Params = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const path = key.replace(/\]/g, '').split('[');
    let node: Record<string, unknown> = out;
    for (const [i, part] of path.entries()) {
      if (i === path.length - 1) {
        node[part] = value;
        break;
      }
      if (node[part] === undefined) node[part] = /^\d+$/.test(path[i + 1]) ? [] : {};
      node = node[part] as Record<string, unknown>;
    }
  }
  return out;
}

function stripeError(res: ServerResponse, status: number, error: Record<string, unknown>): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': rid('req') });
  res.end(JSON.stringify({ error }));
}

function send(res: ServerResponse, status: number, body: unknown, replayed = false): void {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'request-id': rid('req') };
  if (replayed) headers['idempotent-replayed'] = 'true';
  res.writeHead(status, headers);
  res.end(JSON.stringify(body));
}

const missing = (kind: string, id: string) => ({
  type: 'invalid_request_error',
  code: 'resource_missing',
  message: `No such ${kind}: '${id}'`,
  param: 'id',
});

/** Starts the stand-in on an ephemeral loopback port. */
export async function startStripeStandIn(): Promise<StripeStandIn> {
  const accounts = new Map<string, StandInAccount>();
  const sessions = new Map<string, StandInSession & { account: string }>();
  const intents = new Map<string, { account: string; amount: number; refunded: number; charge: string }>();
  const idempotent = new Map<string, { params: string; path: string; status: number; body: unknown }>();
  const calls: ReceivedCall[] = [];
  let base = '';

  function route(account: StandInAccount, method: string, path: string, params: Params): [number, unknown] {
    if (method === 'GET' && path === '/v1/account') {
      return [
        200,
        {
          id: account.id,
          object: 'account',
          livemode: account.secretKey.startsWith('sk_live_'),
          charges_enabled: true,
        },
      ];
    }
    if (method === 'POST' && path === '/v1/checkout/sessions') return [200, createSession(account, params)];
    const session = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path);
    if (method === 'GET' && session) {
      const found = sessions.get(session[1]);
      if (!found || found.account !== account.id)
        return [404, { error: missing('checkout.session', session[1]) }];
      const { account: _, ...answer } = found;
      return [200, answer];
    }
    if (method === 'POST' && path === '/v1/refunds') return refund(account, params);
    if (method === 'POST' && path === '/v1/billing_portal/sessions') {
      if (typeof params.customer !== 'string') return [400, { error: paramMissing('customer') }];
      const id = rid('bps');
      return [
        200,
        {
          id,
          object: 'billing_portal.session',
          customer: params.customer,
          return_url: params.return_url ?? null,
          url: `${base}/billing/${id}`,
        },
      ];
    }
    return [
      404,
      { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}).` } },
    ];
  }

  const paramMissing = (param: string) => ({
    type: 'invalid_request_error',
    code: 'parameter_missing',
    message: `Missing required param: ${param}.`,
    param,
  });

  function createSession(account: StandInAccount, p: Params): StandInSession {
    const items = (p.line_items as Params[] | undefined) ?? [];
    const total = items.reduce((sum, it) => {
      const price = it.price_data as Params | undefined;
      return sum + Number(price?.unit_amount ?? 0) * Number(it.quantity ?? 1);
    }, 0);
    const currency = String((items[0]?.price_data as Params | undefined)?.currency ?? 'usd');
    const id = `cs_${account.secretKey.startsWith('sk_live_') ? 'live' : 'test'}_${randomBytes(16).toString('hex')}`;
    const created: StandInSession & { account: string } = {
      id,
      object: 'checkout.session',
      account: account.id,
      mode: String(p.mode),
      status: 'open',
      payment_status: 'unpaid',
      amount_subtotal: total,
      amount_total: total,
      currency,
      client_reference_id: (p.client_reference_id as string | undefined) ?? null,
      customer_email: (p.customer_email as string | undefined) ?? null,
      metadata: (p.metadata as Record<string, string> | undefined) ?? {},
      success_url: String(p.success_url ?? ''),
      cancel_url: String(p.cancel_url ?? ''),
      url: `${base}/pay/${id}`,
      payment_intent: null,
      line_items: items,
      livemode: account.secretKey.startsWith('sk_live_'),
      created: Math.floor(Date.now() / 1000),
    };
    sessions.set(id, created);
    const { account: _, ...answer } = created;
    return answer;
  }

  function refund(account: StandInAccount, p: Params): [number, unknown] {
    const piId = p.payment_intent as string | undefined;
    if (!piId) return [400, { error: paramMissing('payment_intent') }];
    const pi = intents.get(piId);
    if (!pi || pi.account !== account.id)
      return [400, { error: { ...missing('payment_intent', piId), param: 'payment_intent' } }];
    const left = pi.amount - pi.refunded;
    if (left === 0) {
      return [
        400,
        {
          error: {
            type: 'invalid_request_error',
            code: 'charge_already_refunded',
            message: `Charge ${pi.charge} has already been refunded.`,
          },
        },
      ];
    }
    const amount = p.amount === undefined ? left : Number(p.amount);
    if (!Number.isInteger(amount) || amount < 1 || amount > left) {
      return [
        400,
        {
          error: {
            type: 'invalid_request_error',
            code: 'amount_too_large',
            param: 'amount',
            message: `Refund amount (${amount}) is greater than unrefunded amount on charge (${left})`,
          },
        },
      ];
    }
    pi.refunded += amount;
    return [
      200,
      {
        id: rid('re'),
        object: 'refund',
        amount,
        currency: 'usd',
        payment_intent: piId,
        charge: pi.charge,
        status: 'succeeded',
        created: Math.floor(Date.now() / 1000),
      },
    ];
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body = '';
    for await (const chunk of req) body += chunk;
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const params = parseForm(url.search ? url.search.slice(1) : body);
    const key = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const account = key ? accounts.get(key) : undefined;
    const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
    calls.push({
      method: req.method ?? 'GET',
      path: url.pathname,
      account: account?.id,
      idempotencyKey,
      params,
    });
    // https://docs.stripe.com/keys: an unknown key is a 401 with an invalid_request_error.
    if (!account) {
      return stripeError(res, 401, {
        type: 'invalid_request_error',
        message: `Invalid API Key provided: ${(key ?? '').slice(0, 8)}${'*'.repeat(8)}`,
      });
    }
    if (req.method === 'POST' && idempotencyKey) {
      const slot = `${account.id} ${idempotencyKey}`;
      const first = idempotent.get(slot);
      if (first) {
        if (first.params !== body || first.path !== url.pathname) {
          return stripeError(res, 400, {
            type: 'idempotency_error',
            message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
          });
        }
        return send(res, first.status, first.body, true);
      }
      const [status, answer] = route(account, req.method, url.pathname, params);
      idempotent.set(slot, { params: body, path: url.pathname, status, body: answer });
      return send(res, status, answer);
    }
    const [status, answer] = route(account, req.method ?? 'GET', url.pathname, params);
    send(res, status, answer);
  }

  function chargeOf(paymentIntent: string): StandInCharge {
    const pi = intents.get(paymentIntent);
    if (!pi) throw new Error(`no payment intent ${paymentIntent}`);
    return {
      id: pi.charge,
      object: 'charge',
      payment_intent: paymentIntent,
      amount: pi.amount,
      amount_refunded: pi.refunded,
      refunded: pi.refunded === pi.amount,
      currency: 'eur',
    };
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => stripeError(res, 500, { type: 'api_error', message: 'stand-in failure' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    base,
    calls,
    sessions,
    account() {
      const made = {
        id: rid('acct'),
        secretKey: `sk_test_${randomBytes(24).toString('hex')}`,
        webhookSecret: `whsec_${randomBytes(24).toString('base64url')}`,
      };
      accounts.set(made.secretKey, made);
      return made;
    },
    pay(sessionId) {
      const s = sessions.get(sessionId);
      if (!s) throw new Error(`no session ${sessionId}`);
      if (s.status === 'open') {
        s.status = 'complete';
        s.payment_status = 'paid';
        s.payment_intent = rid('pi');
        intents.set(s.payment_intent, {
          account: s.account,
          amount: s.amount_total,
          refunded: 0,
          charge: rid('ch'),
        });
      }
      const { account: _, ...answer } = s;
      return answer;
    },
    paymentIntent(account, amount) {
      const id = rid('pi');
      intents.set(id, { account: account.id, amount, refunded: 0, charge: rid('ch') });
      return id;
    },
    refundInDashboard(paymentIntent, amount) {
      const pi = intents.get(paymentIntent);
      if (!pi || pi.refunded + amount > pi.amount)
        throw new Error(`cannot refund ${amount} of ${paymentIntent}`);
      pi.refunded += amount;
      return chargeOf(paymentIntent);
    },
    charge: (paymentIntent) => chargeOf(paymentIntent),
    event(type, object, account) {
      return {
        id: rid('evt'),
        object: 'event',
        type,
        ...(account ? { account } : {}),
        api_version: '2025-01-27.acacia',
        created: Math.floor(Date.now() / 1000),
        livemode: false,
        data: { object },
      };
    },
    sign(payload, secret, t = Math.floor(Date.now() / 1000)) {
      const v1 = createHmac('sha256', secret).update(`${t}.${payload}`).digest('hex');
      return `t=${t},v1=${v1}`;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
