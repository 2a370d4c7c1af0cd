import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks signatures (standardwebhooks.com, "Signature scheme"): the secret is
 * `whsec_` + base64 of 24 to 64 random bytes; a signature is `v1,` + base64 of HMAC-SHA256 under
 * those bytes over `<webhook-id>.<webhook-timestamp>.<body>`; `webhook-signature` lists one
 * signature per live secret, space-separated, so receivers verify across a rotation.
 */
const SECRET_PREFIX = 'whsec_';

/** A new signing secret (24 random bytes, as the reference libraries generate). */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}

function keyOf(secret: string): Buffer {
  return Buffer.from(
    secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
    'base64',
  );
}

/** One `v1,<base64>` signature of a message. */
function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The three Standard Webhooks headers of one delivery, signed with every live secret. */
export function webhookHeaders(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => signWebhook(s, id, timestamp, body)).join(' '),
  };
}
