/**
 * The MCP Streamable HTTP transport asks servers to validate `Origin` against DNS rebinding
 * (spec: basic/transports, "Security Warning"). That attack matters for servers that trust the
 * network position of the browser (cookies, localhost). This endpoint trusts only bearer
 * tokens, which a browser never attaches on its own, and allows every origin by CORS so browser
 * MCP clients work. What remains worth refusing:
 *
 * - an `Origin` that is not an http(s) origin (`null` from sandboxed or file: pages, garbage):
 *   no real browser MCP client sends one, so deny on failure;
 * - the rebinding signature: the browser's origin host equals the `Host` it sent (it believes it
 *   is same-origin) yet that host is not BASE_URL's, so a foreign name resolves to this server.
 *
 * Returns the reason to refuse, or undefined to proceed.
 */
export function originRefusal(
  origin: string | undefined,
  host: string | undefined,
  baseUrl: string,
): string | undefined {
  if (origin === undefined || origin === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return 'The Origin header is not a valid origin.';
  }
  if (
    (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') ||
    parsed.origin !== origin.toLowerCase()
  ) {
    return 'The Origin header is not a valid origin.';
  }
  const ours = new URL(baseUrl).host;
  if (host && parsed.host === host.toLowerCase() && host.toLowerCase() !== ours) {
    return 'The request reached this server under a host name that is not its own.';
  }
  return undefined;
}
