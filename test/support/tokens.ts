import { newId } from '../../src/crypto/ids.ts';
import { randomToken, sha256 } from '../../src/crypto/tokens.ts';
import { isoIn, isoNow } from '../../src/store/time.ts';
import type { TestApp } from './app.ts';

/**
 * Writes a grant and an access token straight into the token store, for tests of the protected
 * surfaces' own rules (scopes, isolation, expiry). End-to-end tests get tokens through the real
 * authorization flow instead (test/support/oauth-flow.ts).
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
): Promise<{ token: string; grantId: string; clientId: string }> {
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
  const grantId = newId('grt');
  const resource = options.resource ?? t.config.baseUrl;
  await db
    .insertInto('oauth_grants')
    .values({
      id: grantId,
      client_id: clientId,
      user_id: options.userId,
      school_id: options.schoolId,
      audience: options.audience,
      scopes: options.scopes.join(' '),
      resource,
      auth_time: now,
      created_at: now,
      last_used_at: null,
      revoked_at: null,
    })
    .execute();
  const token = randomToken();
  await db
    .insertInto('oauth_tokens')
    .values({
      token_hash: sha256(token),
      kind: 'access',
      grant_id: grantId,
      client_id: clientId,
      user_id: options.userId,
      school_id: options.schoolId,
      scopes: options.scopes.join(' '),
      resource,
      expires_at: isoIn(options.expiresInSeconds ?? 3600),
      created_at: now,
      revoked_at: null,
      rotated_at: null,
    })
    .execute();
  return { token, grantId, clientId };
}
