/**
 * Windsurf signing in to Lectern. Windsurf documents remote servers (`serverUrl` in
 * ~/.codeium/windsurf/mcp_config.json) and OAuth sign-in (https://docs.windsurf.com/windsurf/cascade/mcp)
 * but publishes neither its callback nor the `client_name` it registers with. The replay uses what
 * vendors.json lists for it (marked unverified there): the name `Windsurf` and its callbacks,
 * discovery as the MCP authorization spec orders it, and the resource document's scopes (none).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadVendors } from '../../src/oauth/clients/vendors.ts';
import { MCP_CHALLENGE_SCOPES } from '../../src/oauth/scopes.ts';
import {
  granted,
  HostNetwork,
  type HostWorld,
  Person,
  pageText,
  registeredHostSignIn,
  startHostWorld,
  toolNames,
} from './support.ts';

describe('Windsurf', () => {
  let h: HostWorld;
  before(async () => {
    h = await startHostWorld();
  });
  after(() => h.close());

  it('registers by name as the windsurf integration; its custom-scheme callback is remembered: one consent, none the next time; loopback-only registration gets a client of its own', async () => {
    const vendor = loadVendors(h.t.config).find((v) => v.client_id === 'windsurf');
    assert.ok(vendor);
    assert.match(vendor.source ?? '', /^unverified/);
    const registration = {
      client_name: vendor.client_name,
      redirect_uris: vendor.redirect_uris,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
    const net = new HostNetwork(h.t);
    const person = new Person(h.t);
    const callback = vendor.redirect_uris[0];
    assert.match(callback, /^windsurf:\/\//);
    const first = await registeredHostSignIn(h, net, person, registration, callback, { sendResource: true });
    assert.equal(first.clientId, 'windsurf');
    assert.deepEqual(granted(first.answer.scope), [...MCP_CHALLENGE_SCOPES].sort());
    assert.match(pageText(person.consentPages[0]), /Windsurf/);
    assert.ok((await toolNames(net, h.mcpUrl, first.answer.access_token)).includes('courses_list'));
    await registeredHostSignIn(h, net, person, registration, callback, { sendResource: true });
    assert.equal(person.consentPages.length, 1);

    const res = await net.postJson(`${h.base}/api/oauth/register`, {
      ...registration,
      redirect_uris: ['http://127.0.0.1:61234/callback'],
    });
    assert.equal(res.status, 201);
    assert.match(((await res.json()) as { client_id: string }).client_id, /^lc_/);
  });
});
