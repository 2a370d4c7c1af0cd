/**
 * Discovery documents: RFC 8414 authorization-server metadata (also served as OpenID Connect
 * Discovery 1.0), RFC 9728 protected-resource metadata and the RFC 7517 JWK Set.
 */
import type { Config } from '../../config.ts';
import { ALL_SCOPES } from '../scopes.ts';
import { RESOURCE_PATHS, type ResourcePath, resourceIdentifier } from './resource-param.ts';

const RESOURCE_NAMES: Record<ResourcePath, string> = {
  '': 'Lectern',
  '/mcp': 'Lectern MCP server',
  '/account/graphql': 'Lectern Account API',
};

/** Paths of the endpoints the metadata advertises (relative to BASE_URL). */
export const OAUTH_PATHS = {
  authorization: '/oauth/authorize',
  token: '/api/oauth/token',
  userinfo: '/api/oauth/userinfo',
  revocation: '/api/oauth/revoke',
  introspection: '/api/oauth/introspect',
  registration: '/api/oauth/register',
  jwks: '/jwks.json',
  protectedResource: '/.well-known/oauth-protected-resource',
  documentation: '/auth.md',
} as const;

/** Claims of the id_token and UserInfo (spec §2.4, product.md §5). */
const CLAIMS_SUPPORTED = [
  'iss',
  'aud',
  'exp',
  'iat',
  'auth_time',
  'nonce',
  'sub',
  'email',
  'name',
  'org_id',
  'roles',
] as const;

/** RFC 6749 §2.3.1: Basic, which servers must support, beside the body method and public clients. */
const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'];

const asCache = new WeakMap<Config, string>();
const prCache = new WeakMap<Config, Map<ResourcePath, string>>();

/**
 * RFC 8414 §2 metadata; the same facts answer OpenID Connect Discovery (§3 there). Spec §5.5:
 * both `id_token_signing_alg_values_supported` and `jwks_uri` are listed because id_tokens are
 * signed. The request-object features OIDC defaults to "true" are switched off explicitly.
 */
export function authorizationServerMetadata(config: Config): string {
  let body = asCache.get(config);
  if (!body) {
    const base = config.baseUrl;
    body = JSON.stringify({
      issuer: base,
      authorization_endpoint: base + OAUTH_PATHS.authorization,
      token_endpoint: base + OAUTH_PATHS.token,
      userinfo_endpoint: base + OAUTH_PATHS.userinfo,
      revocation_endpoint: base + OAUTH_PATHS.revocation,
      introspection_endpoint: base + OAUTH_PATHS.introspection,
      registration_endpoint: base + OAUTH_PATHS.registration,
      jwks_uri: base + OAUTH_PATHS.jwks,
      scopes_supported: ALL_SCOPES,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: AUTH_METHODS,
      revocation_endpoint_auth_methods_supported: AUTH_METHODS,
      introspection_endpoint_auth_methods_supported: AUTH_METHODS,
      id_token_signing_alg_values_supported: ['ES256'],
      subject_types_supported: ['public'],
      claims_supported: CLAIMS_SUPPORTED,
      claims_parameter_supported: false,
      request_parameter_supported: false,
      request_uri_parameter_supported: false,
      // RFC 9207 §3: every authorization response carries `iss`.
      authorization_response_iss_parameter_supported: true,
      // draft-ietf-oauth-client-id-metadata-document §5.
      client_id_metadata_document_supported: true,
      // RFC 9728 §4: the resources this server issues tokens for.
      protected_resources: RESOURCE_PATHS.map((p) => resourceIdentifier(base, p)),
      service_documentation: base + OAUTH_PATHS.documentation,
      ui_locales_supported: ['en'],
    });
    asCache.set(config, body);
  }
  return body;
}

/**
 * RFC 9728 §2 metadata of one of this origin's resources, served at its path-suffixed well-known
 * URL with that resource's identifier (RFC 9728 §3.3: BASE_URL, BASE_URL/mcp,
 * BASE_URL/account/graphql). The same token works at every one of them (spec §5.5).
 * `scopes_supported` (optional in RFC 9728 §2) is left out on purpose: MCP clients that sign in
 * before any challenge ask for every scope it lists, and no client may hold all of them
 * (operator and member scopes exclude each other, spec §5.3). Without it they send no scope and
 * get their audience's default (RFC 6749 §3.3, scope-policy.ts); the authorization-server
 * metadata still lists every scope (spec §1).
 */
export function protectedResourceMetadata(config: Config, path: ResourcePath = ''): string {
  let bodies = prCache.get(config);
  if (!bodies) {
    bodies = new Map();
    prCache.set(config, bodies);
  }
  let body = bodies.get(path);
  if (!body) {
    const base = config.baseUrl;
    body = JSON.stringify({
      resource: resourceIdentifier(base, path),
      authorization_servers: [base],
      bearer_methods_supported: ['header'],
      resource_documentation: base + OAUTH_PATHS.documentation,
      resource_name: RESOURCE_NAMES[path],
    });
    bodies.set(path, body);
  }
  return body;
}
