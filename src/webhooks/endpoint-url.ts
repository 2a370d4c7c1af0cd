import { isIP } from 'node:net';
import { isPublicAddress } from '../http/ssrf.ts';

/** Longest endpoint URL accepted. */
export const MAX_URL_LENGTH = 2048;

/** Names that never reach a public host, whatever DNS says. */
const PRIVATE_NAMES = /(^|\.)(localhost|local|internal|localdomain|home\.arpa)$/i;

/** Whether a hostname (or bracketed IP literal) is the loopback interface. */
export function isLoopbackHost(hostname: string): boolean {
  const bare = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare === '::1';
}

/**
 * Checks an endpoint URL as an operator gives it. HTTPS to a name or a public
 * address; no credentials or fragment. `http://` and loopback only when `allowLoopbackHttp`
 * (outside production, for development and tests). The name's DNS answers are checked again at
 * every delivery, and the connection goes to the checked address (post.ts). Returns the URL to
 * store, or the reason it is refused.
 */
export function checkEndpointUrl(
  raw: string,
  allowLoopbackHttp: boolean,
): { ok: true; url: string } | { ok: false; message: string } {
  if (raw.length > MAX_URL_LENGTH)
    return { ok: false, message: `must be at most ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, message: 'must be an absolute https:// URL' };
  }
  if (url.username || url.password) return { ok: false, message: 'must not carry credentials' };
  if (url.hash) return { ok: false, message: 'must not have a fragment' };
  const loopback = isLoopbackHost(url.hostname);
  if (loopback) {
    return allowLoopbackHttp && (url.protocol === 'http:' || url.protocol === 'https:')
      ? { ok: true, url: url.href }
      : { ok: false, message: 'must not point at this machine (loopback)' };
  }
  if (url.protocol !== 'https:') return { ok: false, message: 'must use https' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !isPublicAddress(host)) {
    return {
      ok: false,
      message: 'must be a public address (private, link-local and metadata ranges are refused)',
    };
  }
  if (!isIP(host) && (PRIVATE_NAMES.test(host) || !host.includes('.'))) {
    return { ok: false, message: 'must be a public host name' };
  }
  return { ok: true, url: url.href };
}
