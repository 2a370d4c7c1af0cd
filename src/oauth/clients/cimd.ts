/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, product.md §3): an
 * https URL used as client_id names a JSON document describing the client. Fetched by
 * cimd-fetch.ts, validated here, and cached as an `oauth_clients` row of kind 'cimd'.
 */
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Config } from '../../config.ts';
import type { Db } from '../../store/database.ts';
import { isoIn, isoNow, nowMs } from '../../store/time.ts';
import { CimdError, type CimdFetchOptions, type CimdRefusal, fetchMetadataDocument } from './cimd-fetch.ts';
import { clientFromRow, type OAuthClient } from './client-row.ts';
import { isHttpsRedirectUri, isLoopbackRedirectUri, MAX_REDIRECT_URI_LENGTH } from './redirect-uris.ts';

const NEGATIVE_TTL_MS = 60_000;
const NEGATIVE_CACHE_MAX = 1000;
const MAX_URL_LENGTH = 1024;

/** True when a client_id names a metadata document (an https URL) rather than a stored client. */
export function isCimdClientId(clientId: string): boolean {
  return clientId.startsWith('https://');
}

/**
 * The draft's rules for the client_id URL (§3): https, a path, no fragment, credentials or dot
 * segments; we also refuse a query and any non-canonical spelling, so "equal to its URL" is plain
 * string equality. The host must be on CIMD_ALLOWED_HOSTS unless OPEN_REGISTRATION is on.
 */
export function checkCimdUrl(clientId: string, cimd: Config['cimd']): URL {
  if (clientId.length > MAX_URL_LENGTH) throw new CimdError('invalid_url', 'client_id URL is too long');
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw new CimdError('invalid_url', 'client_id is not a URL');
  }
  if (url.protocol !== 'https:') throw new CimdError('invalid_url', 'client_id URL must use https');
  if (url.href !== clientId) throw new CimdError('invalid_url', 'client_id URL is not in canonical form');
  if (url.username || url.password)
    throw new CimdError('invalid_url', 'client_id URL must not carry credentials');
  if (url.hash || clientId.includes('#'))
    throw new CimdError('invalid_url', 'client_id URL must not have a fragment');
  if (url.search) throw new CimdError('invalid_url', 'client_id URL must not have a query');
  if (url.pathname === '/' || /\/\.\.?(\/|$)/.test(url.pathname))
    throw new CimdError('invalid_url', 'client_id URL must have a path without dot segments');
  const host = url.hostname.toLowerCase();
  if (!cimd.openRegistration && !cimd.allowedHosts.includes(host) && !cimd.allowedHosts.includes(url.host)) {
    throw new CimdError('host_not_allowed', `${host} is not on the CIMD allowlist`);
  }
  return url;
}

// Real documents carry more than we use (claude.ai lists a jwt-bearer grant, VS Code the device
// grant, ChatGPT private_key_jwt): unknown values are ignored, not refused (RFC 7591 §2).
const documentSchema = z.object({
  client_id: z.string(),
  client_name: z.string().trim().min(1).max(200).optional(),
  redirect_uris: z.array(z.string().max(MAX_REDIRECT_URI_LENGTH)).min(1).max(10),
  token_endpoint_auth_method: z.string().max(100).optional(),
  application_type: z.string().max(100).optional(),
});

/** Shared-secret methods the draft (§4.1) forbids in a metadata document. */
const SECRET_METHODS = new Set(['client_secret_post', 'client_secret_basic', 'client_secret_jwt']);

/** The client a document describes, after the draft's checks and product.md §3's redirect rule. */
interface CimdDocument {
  name: string;
  redirectUris: string[];
  applicationType: 'native' | 'web';
}

/** Validates a fetched document against the URL it came from. */
function parseMetadataDocument(url: URL, json: unknown): CimdDocument {
  if (!json || typeof json !== 'object' || Array.isArray(json))
    throw new CimdError('invalid_document', 'document is not a JSON object');
  const parsed = documentSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CimdError('invalid_document', `${issue.path.join('.') || 'document'}: ${issue.message}`);
  }
  const doc = parsed.data;
  // Draft §4.1: the document's client_id must equal the URL it was fetched from, exactly.
  if (doc.client_id !== url.href)
    throw new CimdError('client_id_mismatch', 'client_id does not equal the document URL');
  // The draft forbids shared secrets. A client declaring private_key_jwt is served as a public
  // client (`none`, the only method product.md §3 gives CIMD clients): our metadata does not
  // offer private_key_jwt, so it authenticates with PKCE alone, as ChatGPT does here.
  const method = doc.token_endpoint_auth_method;
  if (
    method !== undefined &&
    (SECRET_METHODS.has(method) || (method !== 'none' && method !== 'private_key_jwt'))
  )
    throw new CimdError('unsupported_auth_method', `token_endpoint_auth_method ${method} is not accepted`);
  for (const uri of doc.redirect_uris) {
    const underHost = isHttpsRedirectUri(uri) && new URL(uri).hostname === url.hostname;
    if (!underHost && !isLoopbackRedirectUri(uri))
      throw new CimdError('invalid_redirect_uri', `${uri} is neither under ${url.hostname} nor loopback`);
  }
  const allLoopback = doc.redirect_uris.every(isLoopbackRedirectUri);
  return {
    name: doc.client_name ?? url.hostname,
    redirectUris: doc.redirect_uris,
    applicationType:
      doc.application_type === 'native' || doc.application_type === 'web'
        ? doc.application_type
        : allLoopback
          ? 'native'
          : 'web',
  };
}

/**
 * The metadata-document fetcher of one runtime: how it fetches (TLS trust, resolver, allowed
 * address: options given when the runtime is built), the refusals it remembers and the fetches in
 * flight. Built once by the runtime and carried on the app context (`ctx.cimd`).
 */
export interface CimdFetcher {
  readonly db: Db;
  readonly config: Pick<Config, 'cimd'>;
  readonly logger: Logger;
  readonly options: CimdFetchOptions;
  /** Bounded LRU of recent refusals: a bad URL is not refetched on every request. */
  readonly refused: Map<string, { until: number; reason: CimdRefusal }>;
  readonly inFlight: Map<string, Promise<OAuthClient | undefined>>;
  prunedAt: number;
}

/** A fetcher over one database; `options` are for tests and unusual networks (cimd-fetch.ts). */
export function createCimdFetcher(
  deps: { readonly db: Db; readonly config: Pick<Config, 'cimd'>; readonly logger: Logger },
  options: CimdFetchOptions = {},
): CimdFetcher {
  const { db, config, logger } = deps;
  return { db, config, logger, options, refused: new Map(), inFlight: new Map(), prunedAt: 0 };
}

/** What the CIMD functions need: the app context, or anything else carrying the fetcher. */
type WithCimd = { readonly cimd: CimdFetcher };

/** The last refusal recorded for a client_id, if still remembered (for tests and diagnostics). */
export function lastCimdRefusal(ctx: WithCimd, clientId: string): CimdRefusal | undefined {
  return ctx.cimd.refused.get(clientId)?.reason;
}

/**
 * Reads only: the stored client of a metadata-document URL while its cache time lasts and the URL
 * still passes `checkCimdUrl` (the allowlist may have changed); else undefined.
 */
export async function findStoredCimdClient(
  db: Db,
  cimd: Config['cimd'],
  clientId: string,
): Promise<OAuthClient | undefined> {
  try {
    checkCimdUrl(clientId, cimd);
  } catch {
    return undefined;
  }
  const row = await db
    .selectFrom('oauth_clients')
    .selectAll()
    .where('id', '=', clientId)
    .where('kind', '=', 'cimd')
    .executeTakeFirst();
  return row?.metadata_expires_at && row.metadata_expires_at > isoNow() ? clientFromRow(row) : undefined;
}

/**
 * The write step, taken when no fresh stored document answers: fetches the document (one fetch at
 * a time per URL) and upserts it as kind 'cimd'; a refetch keeps `reviewed`. undefined when
 * refused; the reason is logged and remembered for a minute.
 */
export async function fetchCimdClient(ctx: WithCimd, clientId: string): Promise<OAuthClient | undefined> {
  const fetcher = ctx.cimd;
  let url: URL;
  try {
    url = checkCimdUrl(clientId, fetcher.config.cimd);
  } catch (err) {
    fetcher.logger.info({ clientId, reason: (err as CimdError).reason }, 'CIMD client_id refused');
    return undefined;
  }
  const refused = fetcher.refused.get(clientId);
  if (refused && refused.until > nowMs()) return undefined;
  let pending = fetcher.inFlight.get(clientId);
  if (!pending) {
    pending = refresh(fetcher, url).finally(() => fetcher.inFlight.delete(clientId));
    fetcher.inFlight.set(clientId, pending);
  }
  return pending;
}

async function refresh(fetcher: CimdFetcher, url: URL): Promise<OAuthClient | undefined> {
  const clientId = url.href;
  let doc: CimdDocument;
  let raw: unknown;
  let ttl: number;
  try {
    const fetched = await fetchMetadataDocument(url, fetcher.options);
    raw = fetched.json;
    ttl = fetched.ttlSeconds;
    doc = parseMetadataDocument(url, raw);
  } catch (err) {
    const reason: CimdRefusal = err instanceof CimdError ? err.reason : 'network_error';
    fetcher.logger.warn({ clientId, reason, detail: (err as Error).message }, 'CIMD document refused');
    fetcher.refused.delete(clientId);
    fetcher.refused.set(clientId, { until: nowMs() + NEGATIVE_TTL_MS, reason });
    while (fetcher.refused.size > NEGATIVE_CACHE_MAX)
      fetcher.refused.delete(fetcher.refused.keys().next().value!);
    return undefined;
  }
  fetcher.refused.delete(clientId);
  const now = isoNow();
  const values = {
    name: doc.name,
    redirect_uris: JSON.stringify(doc.redirectUris),
    application_type: doc.applicationType,
    metadata: JSON.stringify(raw),
    metadata_fetched_at: now,
    metadata_expires_at: isoIn(ttl),
    updated_at: now,
  };
  await fetcher.db
    .insertInto('oauth_clients')
    .values({
      id: clientId,
      kind: 'cimd',
      school_id: null,
      token_endpoint_auth_method: 'none',
      secret_hash: null,
      allowed_scopes: null,
      reviewed: 0,
      created_by_user_id: null,
      secret_rotated_at: null,
      created_at: now,
      ...values,
    })
    .onConflict((oc) => oc.column('id').doUpdateSet(values).where('oauth_clients.kind', '=', 'cimd'))
    .execute();
  await pruneStale(fetcher, fetcher);
  const row = await fetcher.db
    .selectFrom('oauth_clients')
    .selectAll()
    .where('id', '=', clientId)
    .executeTakeFirstOrThrow();
  return row.kind === 'cimd' ? clientFromRow(row) : undefined;
}

/** Unreviewed CIMD rows unused and expired for this long are deleted. */
export const CIMD_PRUNE_AFTER_SECONDS = 7 * 86_400;

/**
 * Keeps the stored documents bounded (with OPEN_REGISTRATION anyone can make us store one):
 * at most every ten minutes per instance, deletes unreviewed CIMD rows that no grant uses and
 * whose cache time ended CIMD_PRUNE_AFTER_SECONDS ago. They are fetched again if they return.
 */
export async function pruneStale(
  ctx: { readonly db: Db },
  state: { prunedAt: number },
  now = nowMs(),
): Promise<void> {
  if (now - state.prunedAt < 600_000) return;
  state.prunedAt = now;
  await ctx.db
    .deleteFrom('oauth_clients')
    .where('kind', '=', 'cimd')
    .where('reviewed', '=', 0)
    .where('metadata_expires_at', '<', isoIn(-CIMD_PRUNE_AFTER_SECONDS, now))
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('oauth_grants')
            .select('oauth_grants.id')
            .whereRef('oauth_grants.client_id', '=', 'oauth_clients.id'),
        ),
      ),
    )
    .execute();
}
