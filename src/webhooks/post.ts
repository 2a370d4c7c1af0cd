import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { pinnedLookup, type ResolvedAddress, resolvePublicAddress, SsrfError } from '../http/ssrf.ts';
import { isLoopbackHost } from './endpoint-url.ts';

/** Response bytes read at most; the rest is dropped (a huge body never holds the worker). */
const MAX_RESPONSE_BYTES = 64 * 1024;
/** Characters of the response kept in the delivery log. */
const EXCERPT_CHARS = 1024;

/**
 * Options tests use to reach a local HTTPS receiver (its CA, a resolver mapping a test name, one
 * loopback address exempted from the SSRF guard); production uses none.
 */
export interface WebhookFetchOptions {
  ca?: string;
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
  allowAddress?: string;
}

/** What one attempt saw: a status (any, 3xx included) or a network-level error. */
export interface PostResult {
  readonly status: number | null;
  readonly retryAfter?: string;
  readonly excerpt: string;
  readonly error: string | null;
  readonly latencyMs: number;
}

/**
 * POSTs one delivery: resolve, check every answer is public, then connect to exactly that address
 * (SNI and Host stay the name), never following a redirect, all within `timeoutMs` (DNS
 * included). Loopback `http` only when `allowLoopbackHttp`. Never throws: failures are results.
 */
export async function postWebhook(
  url: URL,
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs: number; allowLoopbackHttp: boolean; fetch?: WebhookFetchOptions; now?: () => number },
): Promise<PostResult> {
  const clock = options.now ?? Date.now;
  const started = clock();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  const timedOut = new Promise<never>((_, reject) =>
    controller.signal.addEventListener('abort', () =>
      reject(new Error(`no answer within ${options.timeoutMs} ms`)),
    ),
  );
  timedOut.catch(() => {});
  const done = (r: Omit<PostResult, 'latencyMs'>): PostResult => ({
    ...r,
    latencyMs: Math.max(0, clock() - started),
  });
  try {
    const vetted = await Promise.race([vet(url, options), timedOut]);
    const answer = await Promise.race([
      send(url, vetted, headers, body, options.fetch, controller.signal),
      timedOut,
    ]);
    return done(answer);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return done({ status: null, excerpt: '', error: message.slice(0, 300) });
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

async function vet(
  url: URL,
  options: { allowLoopbackHttp: boolean; fetch?: WebhookFetchOptions },
): Promise<ResolvedAddress> {
  if (isLoopbackHost(url.hostname)) {
    if (!options.allowLoopbackHttp) throw new SsrfError('blocked_address', 'loopback endpoints are refused');
    const bare = url.hostname.replace(/^\[|\]$/g, '');
    return bare === '::1'
      ? { address: '::1', family: 6 }
      : { address: isIP(bare) ? bare : '127.0.0.1', family: 4 };
  }
  if (url.protocol !== 'https:') throw new SsrfError('blocked_address', 'only https endpoints are called');
  return resolvePublicAddress(url.hostname, options.fetch ?? {});
}

function send(
  url: URL,
  vetted: ResolvedAddress,
  headers: Record<string, string>,
  body: string,
  fetchOptions: WebhookFetchOptions | undefined,
  signal: AbortSignal,
): Promise<Omit<PostResult, 'latencyMs'>> {
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const https = url.protocol === 'https:';
  const request = https ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port: url.port || (https ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'Lectern-Webhooks/1',
        },
        servername: https && !isIP(hostname) ? hostname : undefined,
        ca: fetchOptions?.ca,
        agent: false,
        signal,
        maxHeaderSize: 16_384,
        lookup: pinnedLookup(vetted),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const retryAfter = res.headers['retry-after'];
        const chunks: Buffer[] = [];
        let size = 0;
        let settled = false;
        const finish = () => {
          if (settled) return;
          settled = true;
          res.destroy();
          const excerpt = Buffer.concat(chunks).toString('utf8').slice(0, EXCERPT_CHARS);
          const redirect = status >= 300 && status < 400;
          resolve({
            status,
            retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
            excerpt,
            error: redirect ? `answered ${status}; redirects are not followed` : null,
          });
        };
        res.on('data', (chunk: Buffer) => {
          if (size < MAX_RESPONSE_BYTES) chunks.push(chunk.subarray(0, MAX_RESPONSE_BYTES - size));
          size += chunk.length;
          // Enough read to show and judge: the rest of a huge body is not waited for.
          if (size >= MAX_RESPONSE_BYTES) finish();
        });
        res.on('end', finish);
        res.on('error', (err) => (settled ? undefined : reject(err)));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
