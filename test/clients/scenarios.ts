import assert from 'node:assert/strict';
import type { CustomFetch } from 'openid-client';
import { createTestApp, type TestApp } from '../support/app.ts';
import { registerLoopbackClient } from '../support/oauth-flow.ts';
import { createWorld } from '../support/world.ts';
import { CIMD_HOST, type CimdSite, startCimdSite } from './cimd-server.ts';

/** One kind of client of product.md §3, as a real client library would be configured. */
interface ClientScenario {
  readonly name: string;
  readonly kind: 'loopback' | 'member' | 'vendor' | 'cimd';
  readonly clientId: string;
  readonly clientSecret?: string;
  /** How a confidential client sends its secret (RFC 6749 §2.3.1); client_secret_post if unset. */
  readonly authMethod?: 'client_secret_basic' | 'client_secret_post';
  readonly redirectUri: string;
  readonly scopes: string;
  readonly user: string;
  /** Sent at authorize and token (RFC 8707); required for the member app. */
  readonly resource?: string;
  readonly expectedRoles: string[];
}

/** A test app with demo data, a CIMD site, and the five client kinds ready to use. */
export interface ClientWorld {
  readonly t: TestApp;
  readonly scenarios: ClientScenario[];
  /** fetch into the in-process app (discovery, JWKS, token, UserInfo…). */
  readonly fetch: CustomFetch;
  close(): Promise<void>;
}

/** Builds the world: a public and two confidential loopback clients, Claude, a CIMD client. */
export async function createClientWorld(): Promise<ClientWorld> {
  const site: CimdSite = await startCimdSite();
  let t: TestApp;
  try {
    t = await createTestApp({ CIMD_ALLOWED_HOSTS: CIMD_HOST }, { cimdFetch: site.fetchOptions });
  } catch (err) {
    await site.close();
    throw err;
  }
  await createWorld(t);
  try {
    const publicLoopback = await registerLoopbackClient(t, { name: 'Public CLI' });
    const confidential = await registerLoopbackClient(t, {
      name: 'Confidential CLI',
      authMethod: 'client_secret_post',
    });
    assert.ok(confidential.client_secret);
    const basic = await registerLoopbackClient(t, {
      name: 'Basic CLI',
      authMethod: 'client_secret_basic',
    });
    assert.ok(basic.client_secret);
    const claude = await t.request('/api/oauth/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Claude',
        redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
      }),
    });
    assert.ok(claude.status === 200 || claude.status === 201, await claude.clone().text());
    const claudeId = (await claude.json()).client_id as string;
    const base = t.config.baseUrl;
    const operator = { user: 'owner@example.com', expectedRoles: ['owner'] };
    const scenarios: ClientScenario[] = [
      {
        name: 'loopback operator client (public)',
        kind: 'loopback',
        clientId: publicLoopback.client_id,
        redirectUri: 'http://127.0.0.1:49152/callback',
        scopes: 'openid profile email courses:read',
        ...operator,
      },
      {
        name: 'confidential loopback client (client_secret_post)',
        kind: 'loopback',
        clientId: confidential.client_id,
        clientSecret: confidential.client_secret,
        redirectUri: 'http://127.0.0.1:50000/callback',
        scopes: 'openid email courses:write',
        resource: base,
        ...operator,
      },
      {
        name: 'confidential loopback client (client_secret_basic, HTTP Basic)',
        kind: 'loopback',
        clientId: basic.client_id,
        clientSecret: basic.client_secret,
        authMethod: 'client_secret_basic',
        redirectUri: 'http://127.0.0.1:50001/callback',
        scopes: 'openid profile courses:read',
        ...operator,
      },
      {
        name: 'demo member app (resource required)',
        kind: 'member',
        clientId: 'demo-member-app',
        redirectUri: 'http://127.0.0.1:51000/callback',
        scopes: 'openid profile email account:read',
        resource: base,
        user: 'student@example.com',
        expectedRoles: ['student'],
      },
      {
        name: 'vendor client (Claude)',
        kind: 'vendor',
        clientId: claudeId,
        redirectUri: 'https://claude.ai/api/mcp/auth_callback',
        scopes: 'openid profile students:read',
        resource: `${base}/`,
        ...operator,
      },
      {
        name: 'CIMD client (unreviewed: read and identity scopes)',
        kind: 'cimd',
        clientId: site.clientId,
        redirectUri: site.redirectUri,
        scopes: 'openid email courses:read analytics:read',
        ...operator,
      },
    ];
    return {
      t,
      scenarios,
      fetch: async (url, init) => t.app.request(url, init as RequestInit),
      close: async () => {
        await site.close();
        await t.close();
      },
    };
  } catch (err) {
    await site.close();
    await t.close();
    throw err;
  }
}
