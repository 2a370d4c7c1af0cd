import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client, SdkHttpError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { MCP_CHALLENGE_SCOPES } from '../../src/oauth/scopes.ts';
import { Browser } from '../support/oauth-flow.ts';
import { writeTestCertificate } from '../support/tls.ts';
import { createWorld } from '../support/world.ts';
import { type LiveApp, startLiveApp } from './harness.ts';
import { askedScopes, BrowserPlayingProvider, callWithAuth } from './oauth-agent.ts';

const HOST = 'agent.example';

/**
 * The journey of an agent that has no registration at all: it names itself by the HTTPS URL of
 * its Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document). A local HTTPS
 * server with a throw-away certificate plays the agent's web site; only this app trusts it.
 */
describe('an agent identified by a Client ID Metadata Document', () => {
  let live: LiveApp;
  let dir: string;
  let site: Server;
  let docUrl: string;
  let fetched = 0;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lectern-mcp-cimd-'));
    writeTestCertificate(dir, HOST);
    const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    site = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert }, (req, res) => {
      if (req.url !== '/mcp-agent.json') return void res.writeHead(404).end();
      fetched++;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          client_id: docUrl,
          client_name: 'Metadata Document Agent',
          redirect_uris: ['http://127.0.0.1/callback'],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        }),
      );
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    docUrl = `https://${HOST}:${(site.address() as AddressInfo).port}/mcp-agent.json`;
    live = await startLiveApp(
      { CIMD_ALLOWED_HOSTS: HOST },
      {
        cimdFetch: {
          ca: cert,
          resolve: async (hostname) => (hostname === HOST ? [{ address: '127.0.0.1', family: 4 }] : []),
          allowAddress: '127.0.0.1',
        },
      },
    );
    await createWorld(live.t);
  });

  after(async () => {
    await live.close();
    site.closeAllConnections();
    await new Promise((resolve) => site.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('401 → discovery → the document URL as client_id (no registration) → consent → read tools; write scopes refused while unreviewed', async () => {
    const provider = new BrowserPlayingProvider(new Browser(live.t), 'owner@example.com', {
      clientMetadataUrl: docUrl,
    });
    // The document lists http://127.0.0.1/callback: a loopback redirect matches on any port (RFC 8252 §7.3).
    const transport = new StreamableHTTPClientTransport(live.mcpUrl, { authProvider: provider });
    const client = new Client(
      { name: 'cimd-agent', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(transport);

    const courses = await callWithAuth(client, transport, provider, 'courses_list', {});
    assert.equal(courses.isError, undefined, JSON.stringify(courses));
    assert.equal(provider.info?.client_id, docUrl, 'no registration: the document URL is the client_id');
    const authorize = provider.authorizationUrls[0];
    assert.equal(authorize.searchParams.get('client_id'), docUrl);
    assert.deepEqual(askedScopes(authorize), [...MCP_CHALLENGE_SCOPES].sort());
    assert.match(provider.consentPages[0] ?? '', /Metadata Document Agent/);
    assert.ok(fetched >= 1, 'the server fetched the metadata document');

    // A write scope this unreviewed document may not be granted (product.md §3): 403 with no
    // challenge, so the client learns why instead of being sent to a consent it cannot pass.
    const error = await client
      .callTool({ name: 'courses_create', arguments: { slug: 'agent-course', title: 'Agent course' } })
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    assert.ok(error instanceof SdkHttpError, String(error));
    assert.equal(error.status, 403, String(error));
    assert.match(String(error.message), /may not be granted courses:write/);
    assert.equal(provider.authorizationUrls.length, 1, 'no second consent');
    await client.close();
  });
});
