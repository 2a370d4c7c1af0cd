import Stripe from 'stripe';

/**
 * A Stripe client for one school's secret key, speaking to `apiBase` (STRIPE_API_BASE: Stripe,
 * or a stand-in in tests). The SDK's own retries stay off: every changing call carries
 * Lectern's Idempotency-Key, derived from the order or the refund, and a failed step is retried
 * by whoever asked (the buyer, Stripe's redelivery), so no charge or refund happens twice.
 */
export function stripeClient(apiBase: string, secretKey: string): Stripe {
  const url = new URL(apiBase);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return new Stripe(secretKey, {
    host: url.hostname,
    port: url.port || (protocol === 'http' ? 80 : 443),
    protocol,
    maxNetworkRetries: 0,
    timeout: 20_000,
    telemetry: false,
  });
}

/** Whether an error is Stripe refusing the key itself (401), rather than the network failing. */
export function isStripeKeyRefusal(err: unknown): boolean {
  return (
    err instanceof Stripe.errors.StripeAuthenticationError ||
    err instanceof Stripe.errors.StripePermissionError
  );
}

/** Stripe's own webhook signature check (Stripe-Signature, HMAC-SHA256), with a tolerance in seconds;
 * it throws on a missing, forged or stale signature. */
export function constructStripeEvent(
  payload: string,
  signature: string,
  secret: string,
  toleranceSeconds: number,
  nowMs: number,
): Stripe.Event {
  return Stripe.webhooks.constructEvent(payload, signature, secret, toleranceSeconds, undefined, nowMs);
}
