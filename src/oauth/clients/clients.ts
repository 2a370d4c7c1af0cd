/**
 * Client lookup and the two checks every OAuth endpoint makes on a client: its redirect URI
 * (RFC 6749 §3.1.2.3, RFC 8252 §7.3) and its secret (RFC 6749 §2.3.1, by Basic or in the body).
 */
import { safeEqual, sha256 } from '../../crypto/tokens.ts';
import type { AppContext } from '../../http/context.ts';
import { preparedRead } from '../../store/prepared.ts';
import { isoNow } from '../../store/time.ts';
import { fetchCimdClient, findStoredCimdClient, isCimdClientId } from './cimd.ts';
import { CLIENT_COLUMNS, clientFromRow, type OAuthClient } from './client-row.ts';
import { loopbackMatches, MAX_REDIRECT_URI_LENGTH, parseLoopback, prefixMatches } from './redirect-uris.ts';

export type { OAuthClient } from './client-row.ts';

const MAX_CLIENT_ID_LENGTH = 2048;

const validClientId = (clientId: string) =>
  typeof clientId === 'string' && clientId.length > 0 && clientId.length <= MAX_CLIENT_ID_LENGTH;

// Every token, revocation and introspection request authenticates its client: the read is
// compiled once and a named statement on PostgreSQL.
const registeredClient = preparedRead((db, arg) =>
  db.selectFrom('oauth_clients').select(CLIENT_COLUMNS).where('id', '=', arg(0)).where('kind', '!=', 'cimd'),
);

/**
 * A stored client by id; reads only. For an https URL client_id: a vendor's pinned metadata URL,
 * else the stored metadata document while its cache time lasts. undefined if unknown.
 */
export async function findClient(ctx: AppContext, clientId: string): Promise<OAuthClient | undefined> {
  if (!validClientId(clientId)) return undefined;
  if (isCimdClientId(clientId)) {
    // A vendor's own metadata-document URL is pinned in the vendor list: no fetch, no allowlist.
    const pinned = await ctx.db
      .selectFrom('oauth_clients')
      .selectAll()
      .where('id', '=', clientId)
      .where('kind', '=', 'vendor')
      .executeTakeFirst();
    return pinned ? clientFromRow(pinned) : findStoredCimdClient(ctx.db, ctx.config.cimd, clientId);
  }
  const row = (await registeredClient(ctx.db, clientId))[0];
  return row ? clientFromRow(row) : undefined;
}

/**
 * The client an OAuth request names: `findClient`, and when an https URL client_id has no fresh
 * stored document, the explicit step that fetches and stores its Client ID Metadata Document.
 * undefined if unknown or invalid (the reason of a CIMD refusal is logged).
 */
export async function resolveClient(ctx: AppContext, clientId: string): Promise<OAuthClient | undefined> {
  const stored = await findClient(ctx, clientId);
  if (stored || !validClientId(clientId) || !isCimdClientId(clientId)) return stored;
  return fetchCimdClient(ctx, clientId);
}

/**
 * RFC 8252 §7.3: loopback redirect URIs match on any port; every other URI matches exactly,
 * character for character (RFC 6749 §3.1.2.3); vendor prefix entries match one extra path segment.
 */
export function redirectUriMatches(client: OAuthClient, redirectUri: string): boolean {
  if (typeof redirectUri !== 'string' || redirectUri.length > MAX_REDIRECT_URI_LENGTH) return false;
  const loopback = parseLoopback(redirectUri) !== undefined;
  for (const registered of client.redirectUris) {
    if (registered === redirectUri) return true;
    if (loopback && loopbackMatches(registered, redirectUri)) return true;
  }
  return client.redirectUriPrefixes.some((prefix) => prefixMatches(prefix, redirectUri));
}

/**
 * Verifies a confidential client's secret in constant time (only hashes are compared): the
 * current secret, or the one a rotation replaced while its overlap lasts (member apps; RFC 6749
 * §2.3.1 says nothing about rotation, see decisions.md). Both are always compared, so the time
 * taken does not tell which one matched.
 */
export function verifyClientSecret(client: OAuthClient, secret: string | undefined): boolean {
  if (client.authMethod !== 'client_secret_post' || !client.secretHash) return false;
  if (typeof secret !== 'string' || !secret || secret.length > 512) return false;
  const presented = sha256(secret);
  const current = safeEqual(presented, client.secretHash);
  const previous =
    client.previousSecretHash != null &&
    client.previousSecretExpiresAt != null &&
    safeEqual(presented, client.previousSecretHash) &&
    client.previousSecretExpiresAt > isoNow();
  return current || previous;
}
