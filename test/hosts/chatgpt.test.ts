/**
 * ChatGPT signing in to Lectern, following OpenAI's documentation for MCP servers behind OAuth
 * (https://developers.openai.com/plugins/build/auth): the resource document and the
 * authorization-server metadata; because Lectern's authorization responses carry `iss`
 * (authorization_response_iss_parameter_supported, RFC 9207), the stable Client ID Metadata
 * Document https://chatgpt.com/oauth/client.json with the fixed callback
 * https://chatgpt.com/connector_platform_oauth_redirect; `resource` copied from the resource
 * document onto the authorization and token requests; the resource document's scopes (none here).
 * Per-callback registrations (https://chatgpt.com/connector/oauth/<callback_id>) are the
 * fallback for servers without issuer-bound responses.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MCP_CHALLENGE_SCOPES } from '../../src/oauth/scopes.ts';
import {
  firstHostedConnection,
  granted,
  HostNetwork,
  type HostWorld,
  hostedConnectorSignIn,
  startHostWorld,
} from './support.ts';

const CHATGPT_DOCUMENT = 'https://chatgpt.com/oauth/client.json';
const CHATGPT_CALLBACK = 'https://chatgpt.com/connector_platform_oauth_redirect';

describe('ChatGPT', () => {
  let h: HostWorld;
  before(async () => {
    h = await startHostWorld();
  });
  after(() => h.close());

  it('the stable metadata document and the fixed callback (issuer-bound answers), resource BASE_URL/mcp, no scope; one consent, none the next time', async () => {
    const { net, person, first } = await firstHostedConnection(
      h,
      CHATGPT_DOCUMENT,
      CHATGPT_CALLBACK,
      /ChatGPT/,
    );
    assert.equal(first.url.searchParams.get('resource'), h.mcpUrl);

    const second = await hostedConnectorSignIn(h, net, person, CHATGPT_DOCUMENT, CHATGPT_CALLBACK);
    assert.deepEqual(granted(second.answer.scope), [...MCP_CHALLENGE_SCOPES].sort());
    assert.equal(person.consentPages.length, 1, 'remembered: a fixed HTTPS callback');
  });

  it('a per-callback address under https://chatgpt.com/connector/oauth/ belongs to the chatgpt integration', async () => {
    const net = new HostNetwork(h.t);
    const res = await net.postJson(`${h.base}/api/oauth/register`, {
      client_name: 'ChatGPT',
      redirect_uris: ['https://chatgpt.com/connector/oauth/mU4vXkq2Lw9t'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    assert.equal(res.status, 201);
    assert.equal(((await res.json()) as { client_id: string }).client_id, 'chatgpt');
  });
});
