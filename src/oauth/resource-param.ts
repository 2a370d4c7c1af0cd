import { OAuthError } from '../errors/oauth-error.ts';

/**
 * The resource a token will be bound to (RFC 8707 §2). This server is its only protected
 * resource, so each `resource` value must be BASE_URL (with or without a trailing slash);
 * anything else is `invalid_target`. Absent: BASE_URL, unless the caller requires the parameter
 * (the member case of spec §4.2), which RFC 8707 §2 also answers with `invalid_target`.
 */
export function resolveResource(values: readonly string[], baseUrl: string, required: boolean): string {
  if (values.length === 0) {
    if (required) {
      throw new OAuthError(
        'invalid_target',
        `The resource parameter is required for this client and must be ${baseUrl}.`,
      );
    }
    return baseUrl;
  }
  for (const value of values) {
    if (value !== baseUrl && value !== `${baseUrl}/`) {
      throw new OAuthError(
        'invalid_target',
        `Unknown resource ${JSON.stringify(value.slice(0, 200))}; the only resource here is ${baseUrl}.`,
      );
    }
  }
  return baseUrl;
}
