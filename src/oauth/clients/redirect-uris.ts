/**
 * Redirect URI shapes of product.md §3: loopback (RFC 8252 §7.3), fixed HTTPS, and vendor
 * prefixes. Parsing is done on the raw string, so nothing a URL parser normalises away (case,
 * dot segments, default ports) can make two different strings match.
 */

/** Longest redirect URI accepted anywhere. */
export const MAX_REDIRECT_URI_LENGTH = 2000;

// http://<loopback host>[:port][path][?query], no userinfo, no fragment, printable ASCII only.
const LOOPBACK = /^http:\/\/(127\.0\.0\.1|\[::1\]|localhost)(?::(\d{1,5}))?([/?][\x21-\x7e]*)?$/;

/** A loopback redirect URI split into its parts; `rest` is the path and query ("/" if empty). */
export interface LoopbackUri {
  host: string;
  port: number | null;
  rest: string;
}

/**
 * Parses a loopback redirect URI: `http` on 127.0.0.1, [::1] or localhost (RFC 8252 §7.3, §8.3;
 * product.md §3 admits `localhost`), any port, no fragment or credentials.
 */
export function parseLoopback(uri: string): LoopbackUri | undefined {
  if (uri.length > MAX_REDIRECT_URI_LENGTH) return undefined;
  const m = LOOPBACK.exec(uri);
  if (!m) return undefined;
  const [, host, port, rest = ''] = m;
  if (rest.includes('#')) return undefined;
  const portNumber = port === undefined ? null : Number(port);
  if (portNumber !== null && (portNumber < 1 || portNumber > 65535)) return undefined;
  // RFC 3986 §6.2.3: for http an empty path is the same as "/".
  return { host, port: portNumber, rest: rest.startsWith('/') ? rest : `/${rest}` };
}

/** True for a loopback redirect URI as defined by parseLoopback. */
export function isLoopbackRedirectUri(uri: string): boolean {
  return parseLoopback(uri) !== undefined;
}

/**
 * RFC 8252 §7.3: a loopback URI matches a registered one on any port, with the same host and the
 * same path and query, character for character.
 */
export function loopbackMatches(registered: string, requested: string): boolean {
  const r = parseLoopback(registered);
  const q = parseLoopback(requested);
  return !!r && !!q && r.host === q.host && r.rest === q.rest;
}

/** True for an absolute https URL with a host, no credentials and no fragment (RFC 6749 §3.1.2). */
export function isHttpsRedirectUri(uri: string): boolean {
  if (uri.length > MAX_REDIRECT_URI_LENGTH || !/^https:\/\/[\x21-\x7e]+$/.test(uri)) return false;
  try {
    const url = new URL(uri);
    return (
      url.protocol === 'https:' && !!url.hostname && !url.username && !url.password && !uri.includes('#')
    );
  } catch {
    return false;
  }
}

// One path segment of letters, digits, '-' and '_': no '/', '.', '?', '%' or '#' can follow a prefix.
const PREFIX_TAIL = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * A vendor prefix entry (e.g. ChatGPT's per-app callbacks under
 * `https://chatgpt.com/connector/oauth/`) matches the prefix followed by exactly one plain path
 * segment, so a prefix can never reach another path, query, host or userinfo.
 */
export function prefixMatches(prefix: string, requested: string): boolean {
  return (
    prefix.endsWith('/') &&
    requested.length <= MAX_REDIRECT_URI_LENGTH &&
    requested.startsWith(prefix) &&
    PREFIX_TAIL.test(requested.slice(prefix.length))
  );
}
