import type { ClientKind, OAuthClientsTable } from '../tables.ts';

/** A registered OAuth client as the authorization endpoints see it. */
export interface OAuthClient {
  /** The client_id; for CIMD clients the metadata document URL. */
  id: string;
  kind: ClientKind;
  name: string;
  /** Member apps belong to one school; other clients to none. */
  schoolId: string | null;
  /** 'none' (public) or 'client_secret_post' (confidential: Basic or body, RFC 6749 §2.3.1). */
  authMethod: 'none' | 'client_secret_post';
  /** sha256() of the client secret; null for public clients. */
  secretHash: string | null;
  /** sha256() of the secret a rotation replaced, valid until `previousSecretExpiresAt` (ISO). */
  previousSecretHash?: string | null;
  previousSecretExpiresAt?: string | null;
  redirectUris: string[];
  /**
   * Vendor prefix entries (vendors.json `redirect_uri_prefixes`): the prefix plus one plain path
   * segment matches (see redirect-uris.ts prefixMatches). Empty for every other kind.
   */
  redirectUriPrefixes: string[];
  /** Scopes an operator allowed (member apps); null means by audience rules. */
  allowedScopes: string[] | null;
  /** An operator reviewed this CIMD client; unreviewed CIMD clients get read + identity scopes only. */
  reviewed: boolean;
  applicationType: 'native' | 'web';
}

/** The columns a client is read from (clientFromRow): an explicit list, so hot reads can be prepared. */
export const CLIENT_COLUMNS = [
  'id',
  'kind',
  'name',
  'school_id',
  'token_endpoint_auth_method',
  'secret_hash',
  'previous_secret_hash',
  'previous_secret_expires_at',
  'redirect_uris',
  'metadata',
  'allowed_scopes',
  'reviewed',
  'application_type',
] as const;

/** What a client is built from: CLIENT_COLUMNS of its row. */
export type ClientRow = Pick<OAuthClientsTable, (typeof CLIENT_COLUMNS)[number]>;

/** The client a row describes. */
export function clientFromRow(row: ClientRow): OAuthClient {
  let prefixes: string[] = [];
  if (row.kind === 'vendor') {
    const metadata = JSON.parse(row.metadata) as { redirect_uri_prefixes?: unknown };
    if (Array.isArray(metadata.redirect_uri_prefixes)) {
      prefixes = metadata.redirect_uri_prefixes.filter((p): p is string => typeof p === 'string');
    }
  }
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    schoolId: row.school_id,
    authMethod: row.token_endpoint_auth_method,
    secretHash: row.secret_hash,
    previousSecretHash: row.previous_secret_hash ?? null,
    previousSecretExpiresAt: row.previous_secret_expires_at ?? null,
    redirectUris: JSON.parse(row.redirect_uris) as string[],
    redirectUriPrefixes: prefixes,
    allowedScopes: row.allowed_scopes === null ? null : row.allowed_scopes.split(' ').filter(Boolean),
    reviewed: row.reviewed === 1,
    applicationType: row.application_type,
  };
}
