import { OAuthError } from '../../errors/oauth-error.ts';

/**
 * The protected resources of this origin and their identifiers (RFC 9728 §1, §3.1): BASE_URL for
 * the admin API and UserInfo, BASE_URL/mcp for the MCP endpoint, BASE_URL/account/graphql for the
 * Account API. Each has its metadata document at the path-suffixed well-known URL, whose
 * `resource` is that identifier (RFC 9728 §3.3). They are one resource server: a grant is bound
 * to the origin, and a token named for any of them works at every surface (spec §5.5).
 */
export const RESOURCE_PATHS = ['', '/mcp', '/account/graphql'] as const;
export type ResourcePath = (typeof RESOURCE_PATHS)[number];

/** The identifier of one of this origin's protected resources. */
export function resourceIdentifier(baseUrl: string, path: ResourcePath = ''): string {
  return baseUrl + path;
}

/** Where that resource's RFC 9728 metadata is served (the well-known path, then the suffix). */
export function resourceMetadataUrl(baseUrl: string, path: ResourcePath = ''): string {
  return `${baseUrl}/.well-known/oauth-protected-resource${path}`;
}

/** Whether a stored binding names one of this origin's resources. */
export function isOriginResource(value: string, baseUrl: string): boolean {
  return RESOURCE_PATHS.some((p) => value === baseUrl + p);
}

// A value as sent, with or without one trailing slash (product.md §5), to the identifier it names.
function identifierOf(value: string, baseUrl: string): string | undefined {
  const trimmed = value.endsWith('/') ? value.slice(0, -1) : value;
  return isOriginResource(trimmed, baseUrl) ? trimmed : undefined;
}

/**
 * The resource a request names (RFC 8707 §2): each `resource` value must be one of this origin's
 * identifiers, else `invalid_target`; several values name the same origin-bound grant, and the
 * first is the one the token records. Absent: `fallback` (BASE_URL at authorization, the earlier
 * value at the token endpoint), unless the caller requires the parameter (the member case of
 * spec §4.2), which RFC 8707 §2 also answers with `invalid_target`.
 */
export function resolveResource(
  values: readonly string[],
  baseUrl: string,
  required: boolean,
  fallback: string = baseUrl,
): string {
  if (values.length === 0) {
    if (required) {
      throw new OAuthError(
        'invalid_target',
        `The resource parameter is required for this client and must be ${baseUrl}.`,
      );
    }
    return fallback;
  }
  const named = values.map((v) => identifierOf(v, baseUrl));
  const unknown = values.find((_, i) => named[i] === undefined);
  if (unknown !== undefined) {
    throw new OAuthError(
      'invalid_target',
      `Unknown resource ${JSON.stringify(unknown.slice(0, 200))}; the resources here are ${RESOURCE_PATHS.map((p) => baseUrl + p).join(', ')}.`,
    );
  }
  return named[0] as string;
}
