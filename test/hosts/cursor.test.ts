/**
 * Cursor signing in to Lectern. Cursor is closed source; its documentation
 * (https://cursor.com/docs/mcp) names its callbacks: http://localhost:8787/callback for the
 * desktop app, https://www.cursor.com/agents/mcp/oauth/callback for the web and Cursor agents;
 * earlier desktop versions used cursor://anysphere.cursor-mcp/oauth/callback. It registers
 * dynamically (it publishes no metadata document) and, without `auth.scopes` in mcp.json, asks
 * for the resource document's `scopes_supported`, which Lectern leaves out. The registration
 * body's other fields and whether Cursor sends `resource` are not published: the replay
 * registers all three callbacks with the fields every MCP client sends, and no `resource`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MCP_CHALLENGE_SCOPES } from '../../src/oauth/scopes.ts';
import {
  granted,
  HostNetwork,
  type HostWorld,
  introspect,
  Person,
  pageText,
  registeredHostSignIn,
  startHostWorld,
  toolNames,
} from './support.ts';

const DESKTOP = 'http://localhost:8787/callback';
const WEB = 'https://www.cursor.com/agents/mcp/oauth/callback';
const LEGACY = 'cursor://anysphere.cursor-mcp/oauth/callback';

const registration = {
  client_name: 'Cursor',
  redirect_uris: [DESKTOP, WEB, LEGACY],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
};

describe('Cursor', () => {
  let h: HostWorld;
  before(async () => {
    h = await startHostWorld();
  });
  after(() => h.close());

  it('registers its three callbacks as the cursor integration; the desktop callback is loopback: one consent at every sign-in, a refresh in between', async () => {
    const net = new HostNetwork(h.t);
    const person = new Person(h.t);
    const first = await registeredHostSignIn(h, net, person, registration, DESKTOP, { sendResource: false });
    assert.deepEqual(net.take(), [
      'GET /.well-known/oauth-protected-resource/mcp 200',
      'GET /.well-known/oauth-authorization-server 200',
      'POST /api/oauth/register 201',
      'POST /api/oauth/token 200',
    ]);
    assert.equal(first.clientId, 'cursor');
    assert.equal(first.url.searchParams.get('scope'), null);
    assert.deepEqual(granted(first.answer.scope), [...MCP_CHALLENGE_SCOPES].sort());
    assert.equal(person.consentPages.length, 1);
    assert.match(pageText(person.consentPages[0]), /Cursor/);
    // No resource sent: the grant is bound to the origin, and the token works at /mcp.
    assert.equal((await introspect(net, first.answer.access_token, 'cursor')).aud, h.base);
    assert.ok((await toolNames(net, h.mcpUrl, first.answer.access_token)).includes('courses_list'));
    assert.deepEqual(granted((await first.refresh()).scope), [...MCP_CHALLENGE_SCOPES].sort());

    await registeredHostSignIn(h, net, person, registration, DESKTOP, { sendResource: false });
    assert.equal(person.consentPages.length, 2, 'a loopback callback: the page every time');
  });

  it('the earlier cursor:// callback (a private-use scheme) is remembered: one consent, none the next time', async () => {
    const net = new HostNetwork(h.t);
    // Another owner: the first test's approval would count as remembered here too.
    const person = new Person(h.t, 'other-owner@example.com');
    await registeredHostSignIn(h, net, person, registration, LEGACY, { sendResource: false });
    await registeredHostSignIn(h, net, person, registration, LEGACY, { sendResource: false });
    assert.equal(person.consentPages.length, 1);
  });
});
