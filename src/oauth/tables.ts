/** Row shapes of the authorization server's tables (conventions as in domain/tables.ts). */

export type ClientKind = 'vendor' | 'loopback' | 'cimd' | 'member';

export interface OAuthClientsTable {
  /** The client_id; for CIMD clients the metadata document URL. */
  id: string;
  kind: ClientKind;
  name: string;
  /** Member apps belong to one school; other clients to none. */
  school_id: string | null;
  /**
   * 'none' for public clients; 'client_secret_post' marks every confidential client, which may
   * send its secret by HTTP Basic or in the body (RFC 6749 §2.3.1). A client registered with
   * client_secret_basic keeps that name in `metadata`, for the registration answer.
   */
  token_endpoint_auth_method: 'none' | 'client_secret_post';
  /** SHA-256 of the client secret (base64url); null for public clients. */
  secret_hash: string | null;
  /** JSON array of registered redirect URIs. */
  redirect_uris: string;
  /** Space-separated scopes an operator allowed (member apps); null means by audience rules. */
  allowed_scopes: string | null;
  application_type: 'native' | 'web';
  /** JSON of the registration request or metadata document, as accepted. */
  metadata: string;
  reviewed: number;
  metadata_fetched_at: string | null;
  metadata_expires_at: string | null;
  created_by_user_id: string | null;
  secret_rotated_at: string | null;
  /** SHA-256 of the secret the last rotation replaced; it authenticates until the time below. */
  previous_secret_hash: string | null;
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface OAuthGrantsTable {
  id: string;
  client_id: string;
  user_id: string;
  school_id: string;
  audience: 'operator' | 'member';
  scopes: string;
  resource: string;
  auth_time: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** SHA-256 of the refresh token the grant's latest rotation replaced. */
  rotated_refresh_hash: string | null;
  /**
   * That rotation's answer (its access and refresh tokens), sealed under a key derived from
   * LECTERN_SECRET and the replaced token: given again to a replay within the reuse grace.
   */
  rotation_answer: string | null;
}

interface OAuthCodesTable {
  /** SHA-256 of the code (base64url). */
  code_hash: string;
  grant_id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  scopes: string;
  resource: string;
  nonce: string | null;
  auth_time: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

interface OAuthTokensTable {
  /** SHA-256 of the token (base64url). */
  token_hash: string;
  kind: 'access' | 'refresh';
  grant_id: string;
  client_id: string;
  user_id: string;
  school_id: string;
  scopes: string;
  resource: string;
  expires_at: string;
  created_at: string;
  revoked_at: string | null;
  /** Refresh tokens: set when rotated out; presenting it again is reuse. */
  rotated_at: string | null;
}

export interface SigningKeysTable {
  kid: string;
  alg: 'ES256';
  public_jwk: string;
  /** AES-256-GCM ciphertext of the private JWK (base64url iv.ciphertext.tag). */
  private_jwk_encrypted: string;
  created_at: string;
  /** Set when a newer key takes over signing. */
  retired_at: string | null;
  /** After this the public key leaves the JWKS (every token it signed has expired). */
  expires_at: string | null;
}

interface SessionsTable {
  /** SHA-256 of the session cookie value. */
  id_hash: string;
  user_id: string;
  csrf_secret: string;
  auth_time: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
}

/** A value shown once on the page a form redirects to (a new client secret), sealed. */
interface SessionFlashesTable {
  /** The session it belongs to (`sessions.id_hash`). */
  session_hash: string;
  /** What it is for, e.g. `member-app-secret:<client_id>`. */
  name: string;
  /** AES-256-GCM of the JSON value under a key derived from LECTERN_SECRET. */
  sealed: string;
  expires_at: string;
}

/** Every table of the authorization server. */
export interface OAuthTables {
  oauth_clients: OAuthClientsTable;
  oauth_grants: OAuthGrantsTable;
  oauth_codes: OAuthCodesTable;
  oauth_tokens: OAuthTokensTable;
  signing_keys: SigningKeysTable;
  sessions: SessionsTable;
  session_flashes: SessionFlashesTable;
}
