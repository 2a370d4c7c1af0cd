import { createGrant } from '../../src/oauth/grants/grants.ts';
import { ACCESS_TOKEN_LIFETIME_SECONDS, issueTokens } from '../../src/oauth/grants/tokens.ts';
import { isoNow, systemClock, withClock } from '../../src/store/time.ts';
import type { TestApp } from './app.ts';

/**
 * Issues an access token through the real grant and token functions (createGrant, issueTokens),
 * skipping only the authorization flow, for tests of the protected surfaces' own rules (scopes,
 * isolation, expiry). End-to-end tests get tokens through the real authorization flow instead
 * (test/support/oauth-flow.ts). The client row is written directly when missing: test clients
 * have fixed ids, which no registration path gives. `expiresInSeconds` (the product's lifetime
 * is a fixed hour) is reached by issuing at the instant on the app's clock that makes the access
 * token expire then: the grant and its tokens are written as if made that long ago.
 */
export async function issueTestToken(
  t: TestApp,
  options: {
    userId: string;
    schoolId: string;
    scopes: readonly string[];
    audience: 'operator' | 'member';
    clientId?: string;
    resource?: string;
    expiresInSeconds?: number;
  },
): Promise<{ token: string; refreshToken: string; grantId: string; clientId: string }> {
  const shiftMs =
    options.expiresInSeconds === undefined
      ? 0
      : (options.expiresInSeconds - ACCESS_TOKEN_LIFETIME_SECONDS) * 1000;
  // A stand-in TestApp may come without a clock (cli/idempotency-crash.test.ts).
  const issuedAt = (t.clock ?? systemClock).now() + shiftMs;
  return withClock({ now: () => issuedAt }, () => issue(t, options));
}

async function issue(
  t: TestApp,
  options: Parameters<typeof issueTestToken>[1],
): Promise<{ token: string; refreshToken: string; grantId: string; clientId: string }> {
  const db = t.runtime.db;
  const now = isoNow();
  const clientId = options.clientId ?? `test-client-${options.audience}`;
  const exists = await db
    .selectFrom('oauth_clients')
    .select('id')
    .where('id', '=', clientId)
    .executeTakeFirst();
  if (!exists) {
    await db
      .insertInto('oauth_clients')
      .values({
        id: clientId,
        kind: options.audience === 'member' ? 'member' : 'loopback',
        name: `Test ${options.audience} client`,
        school_id: options.audience === 'member' ? options.schoolId : null,
        token_endpoint_auth_method: 'none',
        secret_hash: null,
        redirect_uris: JSON.stringify(['http://127.0.0.1/callback']),
        allowed_scopes: null,
        application_type: 'native',
        metadata: '{}',
        reviewed: 1,
        metadata_fetched_at: null,
        metadata_expires_at: null,
        created_by_user_id: null,
        secret_rotated_at: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
  }
  const grant = await createGrant(db, {
    clientId,
    userId: options.userId,
    schoolId: options.schoolId,
    audience: options.audience,
    scopes: [...options.scopes],
    resource: options.resource ?? t.config.baseUrl,
    authTime: now,
  });
  const issued = await issueTokens(db, grant, options.scopes);
  return { token: issued.accessToken, refreshToken: issued.refreshToken, grantId: grant.id, clientId };
}
