import { ACCOUNT_CHALLENGE_SCOPES, MCP_CHALLENGE_SCOPES } from '../oauth/scopes.ts';

/** The links an agent needs to authenticate, all under BASE_URL. */
function authLinks(baseUrl: string) {
  return {
    walkthrough: `${baseUrl}/auth.md`,
    protectedResourceMetadata: `${baseUrl}/.well-known/oauth-protected-resource/mcp`,
    authorizationServerMetadata: `${baseUrl}/.well-known/oauth-authorization-server`,
    openidConfiguration: `${baseUrl}/.well-known/openid-configuration`,
    registrationEndpoint: `${baseUrl}/api/oauth/register`,
    mcpEndpoint: `${baseUrl}/mcp`,
  };
}

/** Server `instructions`: what an agent can do here, anonymously and with a token. */
export function serverInstructions(baseUrl: string): string {
  const links = authLinks(baseUrl);
  return [
    `Lectern at ${baseUrl} hosts online course sites ("schools"), each named by its subdomain; list_schools gives the subdomains of those with a public catalogue.`,
    "Without a token you can list the schools with a public catalogue (list_schools), search a school's published courses (search_courses), read a course outline (get_course_outline) and list its upcoming public events (list_upcoming_events); these take the school's subdomain as school.",
    `With an OAuth access token for ${baseUrl} you get more tools: a member token (scope account:read, account:write to change) lists your own courses, progress, orders and event registrations and can record progress or register for events; an operator token (an owner or admin of a school) gets one tool per admin operation its scopes allow.`,
    `To authenticate use the authorization code flow with PKCE S256: read ${links.protectedResourceMetadata}, then ${links.authorizationServerMetadata}; get a client_id: register a loopback client at ${links.registrationEndpoint} or use a client ID metadata document (both act for operators and can never be granted account:* scopes), or use the client_id of a member app a school gave you (members); ask for no scope to get your client's default (operators: identity and every read scope; member apps: openid account:read), or for the scopes a WWW-Authenticate challenge names; send the token as "Authorization: Bearer <token>". A walkthrough is at ${links.walkthrough}; the tool how_to_authenticate repeats it and says what to do next, and calling it with sign_in=true makes this server answer 401 so an MCP client with OAuth support opens the sign-in page (as=member starts no sign-in: it explains how to get a member app, the only client that may hold member scopes).`,
    "A tool call beyond your token's scopes is answered HTTP 403 insufficient_scope naming every scope to add (authorize again with them added); a token of the other audience gets 403 wrong_audience, which no consent of the same client can change.",
  ].join('\n');
}

/** The structured answer of the how_to_authenticate tool. */
export function authenticationGuide(baseUrl: string) {
  const links = authLinks(baseUrl);
  return {
    ...links,
    flow: 'OAuth 2.1 authorization code with PKCE (S256); resource indicator (RFC 8707) = BASE_URL',
    resource: baseUrl,
    steps: [
      `GET ${links.protectedResourceMetadata} (RFC 9728) to find the authorization server.`,
      `GET ${links.authorizationServerMetadata} (RFC 8414) for the authorize, token and registration endpoints and scopes_supported.`,
      `Get a client_id: POST ${links.registrationEndpoint} with loopback redirect_uris (http://127.0.0.1:<port>/<path>), or use an HTTPS client ID metadata document URL, or a member app client_id given by a school operator.`,
      `Send the user to the authorization endpoint with response_type=code, client_id, redirect_uri, resource=${baseUrl}, code_challenge (S256), state and, optionally, scope (omitted: your client's default); they sign in, pick the school and consent.`,
      'Exchange the code at the token endpoint with code_verifier and the same resource; refresh with the refresh_token before the access token expires.',
      'Call this endpoint with "Authorization: Bearer <access_token>". On 403 insufficient_scope, authorize again with the scopes it names added to those you hold; 403 wrong_audience means this client can never reach that tool.',
    ],
    scopes: {
      operator: [...MCP_CHALLENGE_SCOPES],
      member: [...ACCOUNT_CHALLENGE_SCOPES, 'account:write'],
      note: 'Operator scopes (admin tools) and account:* scopes (your own data as a member) belong to different clients; never mix them in one request. Member scopes need the client_id of a member app that a school operator created (Developers → OAuth applications); registered, loopback and metadata-document clients act for operators. A request without scope gets the default of your client (the lists above, the member one without account:write). Write scopes are added by step-up when a tool needs them.',
    },
  };
}
