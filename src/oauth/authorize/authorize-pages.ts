import type { Context } from 'hono';
import type { AuthorizationRequest, EligibleSchool } from './authorize-request.ts';

/** What the consent page shows (product.md §8). */
export interface ConsentPageInput {
  readonly request: AuthorizationRequest;
  readonly schools: readonly EligibleSchool[];
  readonly csrfToken: string;
  readonly userEmail: string;
  /** This authorization request as a same-origin path, to come back to after switching account. */
  readonly returnTo: string;
}

/**
 * The pages `/oauth/authorize` shows in the browser. The views live in `web/`, above this layer:
 * app.ts passes them in, so `oauth/` decides what to show and never imports how it looks.
 */
export interface AuthorizePages {
  consent(c: Context, input: ConsentPageInput): Promise<Response>;
  /**
   * An error shown to the person, where redirecting back to the client would be unsafe
   * (unknown client or redirect URI: RFC 6749 §4.1.2.1, OAuth 2.1 §7.12) or impossible.
   */
  error(c: Context, status: number, title: string, message: string): Promise<Response>;
}
