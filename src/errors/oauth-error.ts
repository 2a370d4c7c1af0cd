/** Error codes of RFC 6749 §5.2, §4.1.2.1, RFC 7591 §3.2.2, RFC 8707 §2 and RFC 6750 §3.1. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'unsupported_token_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'server_error'
  | 'temporarily_unavailable'
  | 'invalid_client_metadata'
  | 'invalid_redirect_uri'
  | 'invalid_token'
  | 'insufficient_scope';

const DEFAULT_STATUS: Partial<Record<OAuthErrorCode, number>> = {
  invalid_client: 401,
  invalid_token: 401,
  insufficient_scope: 403,
  server_error: 500,
  temporarily_unavailable: 503,
};

/**
 * An OAuth error answered as RFC 6749 §5.2 JSON (`error`, `error_description`).
 * `description` is public; `cause` is private.
 */
export class OAuthError extends Error {
  override name = 'OAuthError';
  readonly error: OAuthErrorCode;
  readonly description: string;
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;

  constructor(
    error: OAuthErrorCode,
    description: string,
    options: { status?: number; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(`${error}: ${description}`, { cause: options.cause });
    this.error = error;
    this.description = description;
    this.status = options.status ?? DEFAULT_STATUS[error] ?? 400;
    this.headers = options.headers;
  }
}
