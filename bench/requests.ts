/**
 * The hot paths' requests as `app.fetch` receives them in process (bench/in-process.ts times
 * them, bench/statements.ts counts their round trips): one builder per path, so both measure the
 * same request.
 */
import { DEMO_MEMBER_APP_ID } from '../src/domain/demo/demo-seed.ts';
import { QUERY } from './account-scenarios.ts';
import { toolsCall } from './mcp-scenarios.ts';
import { FORM, type OAuthStore, REDIRECT_URI } from './oauth-scenarios.ts';

export const BASE = 'http://127.0.0.1:1';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const json = (token: string) => ({ ...bearer(token), 'content-type': 'application/json' });

export const hotRequests = {
  healthz: () => new Request(`${BASE}/healthz`),
  userinfo: (token: string) => new Request(`${BASE}/api/oauth/userinfo`, { headers: bearer(token) }),
  introspection: (token: string) =>
    new Request(`${BASE}/api/oauth/introspect`, {
      method: 'POST',
      headers: FORM,
      body: `token=${token}&client_id=${DEMO_MEMBER_APP_ID}`,
    }),
  refresh: (refreshToken: string) =>
    new Request(`${BASE}/api/oauth/token`, {
      method: 'POST',
      headers: FORM,
      body: `grant_type=refresh_token&client_id=${DEMO_MEMBER_APP_ID}&refresh_token=${refreshToken}`,
    }),
  /** Code exchange with an id_token, spending one of the store's codes. */
  code: (store: OAuthStore) =>
    new Request(`${BASE}/api/oauth/token`, {
      method: 'POST',
      headers: FORM,
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: DEMO_MEMBER_APP_ID,
        code: store.codes.pop() ?? 'exhausted',
        code_verifier: store.verifier,
        redirect_uri: REDIRECT_URI,
        resource: store.resource,
      }).toString(),
    }),
  graphql: (token: string) =>
    new Request(`${BASE}/account/graphql`, { method: 'POST', headers: json(token), body: QUERY }),
  /** tools/call my_courses, in the 2025-11-25 era or the 2026-07-28 one with its standard headers. */
  mcp: (token: string, modern: boolean) =>
    new Request(`${BASE}/mcp`, {
      method: 'POST',
      headers: {
        ...json(token),
        accept: 'application/json, text/event-stream',
        ...(modern
          ? { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'my_courses' }
          : { 'mcp-protocol-version': '2025-11-25' }),
      },
      body: toolsCall(modern),
    }),
};
