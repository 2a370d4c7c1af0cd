import type { TaughtCourses } from '../domain/school/standing.ts';
import type { ScopedClient } from '../oauth/scope-policy.ts';
import type { Audience } from '../oauth/scopes.ts';

/**
 * Who a valid access token speaks for: the result of bearer verification, handed to every
 * protected surface (admin API, Account API, MCP, UserInfo).
 */
export interface Principal {
  /** sha256 of the presented token: the key for revocation checks and caches. */
  readonly tokenHash: string;
  readonly userId: string;
  /** The school (org_id) the grant is for; a token never reaches another school. */
  readonly schoolId: string;
  /** The user's roles at that school, read at verification time. */
  readonly roles: readonly string[];
  /**
   * The client the token was issued to; empty for a person on the operator pages, who acts as
   * themselves (no client, no token: their scopes are what their roles grant).
   */
  readonly clientId: string;
  /** What decides which scopes the client could be granted (step-up challenges name only those). */
  readonly client: ScopedClient;
  readonly grantId: string;
  readonly audience: Audience;
  readonly scopes: ReadonlySet<string>;
  /** The resource the token is bound to (RFC 8707): one of this origin's identifiers. */
  readonly resource: string;
  /** Expiry, seconds since the epoch. */
  readonly expiresAt: number;
  /**
   * The user's email and name, read in the same statement as the token (so UserInfo and the
   * Account API's viewer need no second round trip); as fresh as the roles.
   */
  readonly user?: { readonly email: string; readonly name: string };
  /**
   * What a grant reaching only the courses the person teaches reaches (resource/narrowing.ts):
   * set by the operator pages for a lecturer; absent, such a grant reaches no course.
   */
  readonly taught?: TaughtCourses;
}
