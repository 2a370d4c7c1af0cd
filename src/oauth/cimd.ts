/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, product.md §3): an
 * https URL used as client_id names a JSON document describing the client. Fetched under the
 * SSRF rules of ssrf.ts, validated, and cached as an `oauth_clients` row of kind 'cimd'.
 */
import { request } from 'node:https';
import { isIP } from 'node:net';
import { z } from 'zod';
import type { Config } from '../config.ts';
import type { AppContext } from '../http/context.ts';
import { isoIn, isoNow } from '../store/time.ts';
import { clientFromRow, type OAuthClient } from './client-row.ts';
import { isHttpsRedirectUri, isLoopbackRedirectUri, MAX_REDIRECT_URI_LENGTH } from './redirect-uris.ts';
import { type ResolvedAddress, resolvePublicAddress, SsrfError } from './ssrf.ts';

/** product.md §3: at most 5 KB, 3 s. */
export const CIMD_MAX_BYTES = 5120;
export const CIMD_TIMEOUT_MS = 3000;
/** Cache lifetime bounds for a fetched document, honouring its Cache-Control max-age. */
export const CIMD_MIN_TTL_SECONDS = 60;
export const CIMD_MAX_TTL_SECONDS = 86_400;
const CIMD_DEFAULT_TTL_SECONDS = 600;
const NEGATIVE_TTL_MS = 60_000;
const NEGATIVE_CACHE_MAX = 1000;
const MAX_URL_LENGTH = 1024;

export type CimdRefusal =
  | 'invalid_url'
  | 'host_not_allowed'
  | 'blocked_address'
  | 'dns_failure'
  | 'network_error'
  | 'timeout'
  | 'redirect_refused'
  | 'bad_status'
  | 'bad_content_type'
  | 'too_large'
  | 'invalid_json'
  | 'invalid_document'
  | 'client_id_mismatch'
  | 'invalid_redirect_uri'
  | 'unsupported_auth_method';

/** Why a metadata document was refused. */
export class CimdError extends Error {
  override name = 'CimdError';
  readonly reason: CimdRefusal;
  constructor(reason: CimdRefusal, message: string) {
    super(message);
    this.reason = reason;
  }
}

/**
 * Options of the document fetcher. Production uses none of them; they exist so a test can serve
 * a document from its own HTTPS server: trust its certificate (`ca`), map a test hostname
 * (`resolve`) and exempt that one loopback address (`allowAddress`) from the SSRF guard.
 */
export interface CimdFetchOptions {
  ca?: string;
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
  allowAddress?: string;
}

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

/** Seconds to cache a response, from its Cache-Control, within [60 s, 24 h]. */
export function cacheSeconds(cacheControl: string | undefined): number {
  const clamp = (s: number) => Math.min(CIMD_MAX_TTL_SECONDS, Math.max(CIMD_MIN_TTL_SECONDS, s));
  if (!cacheControl) return CIMD_DEFAULT_TTL_SECONDS;
  if (/(^|,)\s*(no-store|no-cache)\b/i.test(cacheControl)) return CIMD_MIN_TTL_SECONDS;
  const m = /(^|,)\s*max-age\s*=\s*"?(\d+)"?/i.exec(cacheControl);
  return m ? clamp(Number(m[2])) : CIMD_DEFAULT_TTL_SECONDS;
}

/**
 * GETs the document at `url`: https only, no redirects, at most CIMD_MAX_BYTES (reading stops
 * beyond), CIMD_TIMEOUT_MS in all (DNS included), connecting only to the vetted address while
 * keeping SNI and Host on the hostname.
 */
export async function fetchMetadataDocument(
  url: URL,
  options: CimdFetchOptions = {},
): Promise<{ json: unknown; ttlSeconds: number }> {
  if (url.protocol !== 'https:') throw new CimdError('invalid_url', 'only https is fetched');
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), CIMD_TIMEOUT_MS);
  const timedOut = new Promise<never>((_, reject) =>
    controller.signal.addEventListener('abort', () =>
      reject(new CimdError('timeout', `no complete answer within ${CIMD_TIMEOUT_MS} ms`)),
    ),
  );
  timedOut.catch(() => {});
  try {
    let vetted: ResolvedAddress;
    try {
      vetted = await Promise.race([resolvePublicAddress(url.hostname, options), timedOut]);
    } catch (err) {
      if (err instanceof SsrfError) throw new CimdError(err.reason, err.message);
      throw err;
    }
    return await Promise.race([get(url, vetted, options, controller.signal), timedOut]);
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

function get(
  url: URL,
  vetted: ResolvedAddress,
  options: CimdFetchOptions,
  signal: AbortSignal,
): Promise<{ json: unknown; ttlSeconds: number }> {
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port: url.port || 443,
        path: url.pathname,
        method: 'GET',
        headers: { Accept: 'application/json', 'User-Agent': 'Lectern-CIMD/1' },
        servername: isIP(hostname) ? undefined : hostname,
        ca: options.ca,
        agent: false,
        signal,
        maxHeaderSize: 16_384,
        // Connect to the address that passed the SSRF check, never to a fresh DNS answer.
        lookup: (_host, opts, callback) => {
          if ((opts as { all?: boolean }).all) {
            (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, [vetted]);
          } else {
            callback(null, vetted.address, vetted.family);
          }
        },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const fail = (e: CimdError) => {
          res.destroy();
          reject(e);
        };
        if (status >= 300 && status < 400)
          return fail(new CimdError('redirect_refused', `answered ${status}; redirects are not followed`));
        if (status !== 200) return fail(new CimdError('bad_status', `answered ${status}`));
        const type = String(res.headers['content-type'] ?? '')
          .split(';')[0]
          .trim()
          .toLowerCase();
        if (type !== 'application/json' && !/^application\/[\w.+-]+\+json$/.test(type))
          return fail(new CimdError('bad_content_type', `content type ${type || '(none)'} is not JSON`));
        const encoding = res.headers['content-encoding'];
        if (encoding && encoding !== 'identity')
          return fail(new CimdError('bad_content_type', `content encoding ${encoding} is not accepted`));
        if (Number(res.headers['content-length'] ?? 0) > CIMD_MAX_BYTES)
          return fail(new CimdError('too_large', `document is over ${CIMD_MAX_BYTES} bytes`));
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > CIMD_MAX_BYTES)
            return fail(new CimdError('too_large', `document is over ${CIMD_MAX_BYTES} bytes`));
          chunks.push(chunk);
        });
        res.on('error', (err) => reject(new CimdError('network_error', err.message)));
        res.on('end', () => {
          if (size > CIMD_MAX_BYTES) return;
          let json: unknown;
          try {
            json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            return reject(new CimdError('invalid_json', 'document is not JSON'));
          }
          resolve({ json, ttlSeconds: cacheSeconds(res.headers['cache-control']) });
        });
      },
    );
    req.on('error', (err) => reject(new CimdError('network_error', err.message)));
    req.end();
  });
}

const documentSchema = z.object({
  client_id: z.string(),
  client_name: z.string().trim().min(1).max(200).optional(),
  redirect_uris: z.array(z.string().max(MAX_REDIRECT_URI_LENGTH)).min(1).max(10),
  token_endpoint_auth_method: z.string().optional(),
  grant_types: z.array(z.enum(['authorization_code', 'refresh_token'])).optional(),
  response_types: z.array(z.literal('code')).optional(),
  application_type: z.enum(['native', 'web']).optional(),
});

/** The client a document describes, after the draft's checks and product.md §3's redirect rule. */
export interface CimdDocument {
  name: string;
  redirectUris: string[];
  applicationType: 'native' | 'web';
}

/** Validates a fetched document against the URL it came from. */
export function parseMetadataDocument(url: URL, json: unknown): CimdDocument {
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
  // The draft forbids shared secrets; private_key_jwt is not offered here (product.md §3: none).
  if (doc.token_endpoint_auth_method !== undefined && doc.token_endpoint_auth_method !== 'none')
    throw new CimdError('unsupported_auth_method', 'token_endpoint_auth_method must be none');
  for (const uri of doc.redirect_uris) {
    const underHost = isHttpsRedirectUri(uri) && new URL(uri).hostname === url.hostname;
    if (!underHost && !isLoopbackRedirectUri(uri))
      throw new CimdError('invalid_redirect_uri', `${uri} is neither under ${url.hostname} nor loopback`);
  }
  const allLoopback = doc.redirect_uris.every(isLoopbackRedirectUri);
  return {
    name: doc.client_name ?? url.hostname,
    redirectUris: doc.redirect_uris,
    applicationType: doc.application_type ?? (allLoopback ? 'native' : 'web'),
  };
}

interface CimdState {
  options: CimdFetchOptions;
  /** Bounded LRU of recent refusals: a bad URL is not refetched on every request. */
  refused: Map<string, { until: number; reason: CimdRefusal }>;
  inFlight: Map<string, Promise<OAuthClient | undefined>>;
}

const states = new WeakMap<object, CimdState>();

function stateOf(ctx: AppContext): CimdState {
  let state = states.get(ctx.db);
  if (!state) {
    state = { options: {}, refused: new Map(), inFlight: new Map() };
    states.set(ctx.db, state);
  }
  return state;
}

/** Tests only: sets the fetcher options for one app (its database handle). */
export function configureCimdFetch(ctx: AppContext, options: CimdFetchOptions): void {
  const state = stateOf(ctx);
  state.options = options;
  state.refused.clear();
}

/** The last refusal recorded for a client_id, if still remembered (for tests and diagnostics). */
export function lastCimdRefusal(ctx: AppContext, clientId: string): CimdRefusal | undefined {
  return stateOf(ctx).refused.get(clientId)?.reason;
}

/**
 * The client a metadata-document URL names: the stored row while its cache time lasts, else a
 * fresh fetch (one at a time per URL) upserted as kind 'cimd'. A refetch keeps `reviewed`.
 * undefined when refused; the reason is logged and remembered for a minute.
 */
export async function resolveCimdClient(ctx: AppContext, clientId: string): Promise<OAuthClient | undefined> {
  const state = stateOf(ctx);
  let url: URL;
  try {
    url = checkCimdUrl(clientId, ctx.config.cimd);
  } catch (err) {
    ctx.logger.info({ clientId, reason: (err as CimdError).reason }, 'CIMD client_id refused');
    return undefined;
  }
  const row = await ctx.db
    .selectFrom('oauth_clients')
    .selectAll()
    .where('id', '=', clientId)
    .where('kind', '=', 'cimd')
    .executeTakeFirst();
  if (row?.metadata_expires_at && row.metadata_expires_at > isoNow()) return clientFromRow(row);
  const refused = state.refused.get(clientId);
  if (refused && refused.until > Date.now()) return undefined;
  let pending = state.inFlight.get(clientId);
  if (!pending) {
    pending = refresh(ctx, state, url).finally(() => state.inFlight.delete(clientId));
    state.inFlight.set(clientId, pending);
  }
  return pending;
}

async function refresh(ctx: AppContext, state: CimdState, url: URL): Promise<OAuthClient | undefined> {
  const clientId = url.href;
  let doc: CimdDocument;
  let raw: unknown;
  let ttl: number;
  try {
    const fetched = await fetchMetadataDocument(url, state.options);
    raw = fetched.json;
    ttl = fetched.ttlSeconds;
    doc = parseMetadataDocument(url, raw);
  } catch (err) {
    const reason: CimdRefusal = err instanceof CimdError ? err.reason : 'network_error';
    ctx.logger.warn({ clientId, reason, detail: (err as Error).message }, 'CIMD document refused');
    state.refused.delete(clientId);
    state.refused.set(clientId, { until: Date.now() + NEGATIVE_TTL_MS, reason });
    while (state.refused.size > NEGATIVE_CACHE_MAX) state.refused.delete(state.refused.keys().next().value!);
    return undefined;
  }
  state.refused.delete(clientId);
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
  await ctx.db
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
    .onConflict((oc) => oc.column('id').doUpdateSet(values))
    .execute();
  const row = await ctx.db
    .selectFrom('oauth_clients')
    .selectAll()
    .where('id', '=', clientId)
    .executeTakeFirstOrThrow();
  return row.kind === 'cimd' ? clientFromRow(row) : undefined;
}
