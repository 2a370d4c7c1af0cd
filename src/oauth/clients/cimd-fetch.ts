/**
 * The fetcher of Client ID Metadata Documents: https only, no redirects, bounded size and time,
 * and connections only to an address the SSRF guard (ssrf.ts) has checked.
 */
import { request } from 'node:https';
import { isIP } from 'node:net';
import { pinnedLookup, type ResolvedAddress, resolvePublicAddress, SsrfError } from '../../http/ssrf.ts';

/** product.md §3: at most 5 KB, 3 s. */
const CIMD_MAX_BYTES = 5120;
export const CIMD_TIMEOUT_MS = 3000;
/** Cache lifetime bounds for a fetched document, honouring its Cache-Control max-age. */
const CIMD_MIN_TTL_SECONDS = 60;
export const CIMD_MAX_TTL_SECONDS = 86_400;
const CIMD_DEFAULT_TTL_SECONDS = 600;

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
        lookup: pinnedLookup(vetted),
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
