import { z } from 'zod';
import { open, seal } from '../../crypto/secret-box.ts';
import { problem } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { parseValid } from '../kernel/checks.ts';
import { isStripeKeyRefusal, stripeClient } from './stripe-client.ts';

/** What a school needs to reach Stripe: the API's origin and the key that seals stored secrets. */
export interface StripeSettings {
  /** STRIPE_API_BASE. */
  readonly apiBase: string;
  /** The deployment's secret (LECTERN_SECRET): seals the school's keys at rest. */
  readonly sealKey: Uint8Array;
}

/** A school's Stripe connection as anyone may read it: never a key. */
export interface StripeConnection {
  connected: boolean;
  accountId: string | null;
  livemode: boolean | null;
  connectedAt: string | null;
}

/** A connected school's keys, unsealed, for the calls and the signature checks that need them. */
export interface StripeKeys {
  accountId: string;
  secretKey: string;
  webhookSecret: string;
}

/** The two write-only secrets a school gives to connect (https://docs.stripe.com/keys). */
export const StripeKeysFields = z.object({
  secretKey: z
    .string()
    .regex(
      /^(sk|rk)_(test|live)_[A-Za-z0-9]{8,247}$/,
      'must be a Stripe secret or restricted key (sk_… or rk_…)',
    )
    .describe(
      'Write-only. The account’s secret key (`sk_test_…`, `sk_live_…`) or a restricted key (`rk_…`).',
    ),
  webhookSecret: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/=_-]{8,247}$/, 'must be a Stripe webhook signing secret (whsec_…)')
    .describe('Write-only. The signing secret (`whsec_…`) of the endpoint made for `webhook_url`.'),
});

// The school is the associated data: a sealed key copied to another school's row does not open.
const aad = (schoolId: string, field: string) => `stripe:${schoolId}:${field}`;

/** The school's Stripe connection (never its keys). */
export async function getStripeConnection(db: Db | Tx, schoolId: string): Promise<StripeConnection> {
  const row = await db
    .selectFrom('stripe_accounts')
    .select(['account_id', 'livemode', 'created_at'])
    .where('school_id', '=', schoolId)
    .executeTakeFirst();
  return {
    connected: row !== undefined,
    accountId: row?.account_id ?? null,
    livemode: row ? row.livemode === 1 : null,
    connectedAt: row?.created_at ?? null,
  };
}

/** The school's unsealed keys, or undefined when it has not connected Stripe. */
export async function stripeKeysOf(
  db: Db | Tx,
  sealKey: Uint8Array,
  schoolId: string,
): Promise<StripeKeys | undefined> {
  const row = await db
    .selectFrom('stripe_accounts')
    .selectAll()
    .where('school_id', '=', schoolId)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    accountId: row.account_id,
    secretKey: open(sealKey, row.secret_key, aad(schoolId, 'secret_key')),
    webhookSecret: open(sealKey, row.webhook_secret, aad(schoolId, 'webhook_secret')),
  };
}

/** A problem for a Stripe call that failed for another reason than the key (network, Stripe down). */
export function stripeFailed(): never {
  throw problem('stripe_failed', { detail: 'Stripe could not be reached or did not answer; try again.' });
}

/**
 * Connects the school's Stripe account: the key is tried with `GET /v1/account` first, and kept
 * (sealed) only if Stripe accepts it; a refused key is a 422 `stripe_key_refused`.
 */
export async function connectStripe(
  db: Db | Tx,
  settings: StripeSettings,
  schoolId: string,
  input: z.input<typeof StripeKeysFields>,
): Promise<StripeConnection> {
  const v = parseValid(StripeKeysFields, input);
  let account: { id: string; livemode?: boolean };
  try {
    account = await stripeClient(settings.apiBase, v.secretKey).accounts.retrieveCurrent();
  } catch (err) {
    if (isStripeKeyRefusal(err)) {
      throw problem('stripe_key_refused', {
        detail: 'Stripe refused this secret key: check that it is the account’s current secret key.',
        errors: [{ field: 'secret_key', message: 'was refused by Stripe' }],
      });
    }
    stripeFailed();
  }
  const now = isoNow();
  const row = {
    account_id: account.id,
    livemode: v.secretKey.includes('_live_') ? 1 : 0,
    secret_key: seal(settings.sealKey, v.secretKey, aad(schoolId, 'secret_key')),
    webhook_secret: seal(settings.sealKey, v.webhookSecret, aad(schoolId, 'webhook_secret')),
    updated_at: now,
  };
  await db
    .insertInto('stripe_accounts')
    .values({ school_id: schoolId, created_at: now, ...row })
    .onConflict((oc) => oc.column('school_id').doUpdateSet(row))
    .execute();
  return getStripeConnection(db, schoolId);
}

/** Disconnects the school's Stripe account; its keys are deleted. Idempotent. */
export async function disconnectStripe(db: Db | Tx, schoolId: string): Promise<void> {
  await db.deleteFrom('stripe_accounts').where('school_id', '=', schoolId).execute();
}
