import { PROTOCOL_VERSION_META_KEY, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';

/**
 * The `MCP-Protocol-Version` request header (spec: basic/transports, "Protocol Version Header").
 * A request naming a revision this server does not speak is a 400, before anything else looks at
 * it: the token, the scope gate and the tools would otherwise answer first (a 401 challenge a
 * client would sign in on, only to be refused afterwards), and hosts fall back to an older
 * revision on the 400. No header is the spec's default (2025-03-26), which the SDK assumes. The
 * answer carries the SDK's own code and message for the same request, the request's id where it
 * has one, and the supported revisions in `data`.
 */

/** The per-request-envelope revision the SDK serves (its SUPPORTED_MODERN_PROTOCOL_VERSIONS, internal). */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** The revisions negotiated by `initialize` and served statelessly (the SDK's list). */
const LEGACY_VERSIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;

/** JSON-RPC codes of the SDK's answers: its transport's "Bad Request", the 2026 UnsupportedProtocolVersion. */
const BAD_REQUEST = -32000;
const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/** A 400 answer's JSON-RPC error, with the id it carries. */
export interface VersionRefusal {
  readonly id: string | number | null;
  readonly code: number;
  readonly message: string;
  readonly data: { readonly supported: readonly string[]; readonly requested: string };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether the body holds an `initialize`: that request negotiates its revision in its body. */
function isInitialize(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => isObject(m) && m.method === 'initialize');
}

/**
 * The refusal of a POST whose header names a revision not served here, or undefined. The body is
 * read (and parsed) only then, so the common request pays one comparison.
 */
export async function versionRefusal(
  header: string | undefined,
  text: () => Promise<string>,
): Promise<VersionRefusal | undefined> {
  if (header === undefined || header === MODERN_PROTOCOL_VERSION || LEGACY_VERSIONS.includes(header)) {
    return undefined;
  }
  let message: unknown;
  try {
    message = JSON.parse(await text());
  } catch {
    message = undefined;
  }
  if (isInitialize(message)) return undefined;
  const id =
    isObject(message) && (typeof message.id === 'string' || typeof message.id === 'number')
      ? message.id
      : null;
  // A request carrying the 2026-07-28 envelope claims that era: its error and supported list.
  const params = isObject(message) && isObject(message.params) ? message.params : undefined;
  if (params && isObject(params._meta) && PROTOCOL_VERSION_META_KEY in params._meta) {
    return {
      id,
      code: UNSUPPORTED_PROTOCOL_VERSION,
      message: `Unsupported protocol version: ${header}`,
      data: { supported: [MODERN_PROTOCOL_VERSION], requested: header },
    };
  }
  return {
    id,
    code: BAD_REQUEST,
    message: `Bad Request: Unsupported protocol version: ${header} (supported versions: ${LEGACY_VERSIONS.join(', ')})`,
    data: { supported: LEGACY_VERSIONS, requested: header },
  };
}
