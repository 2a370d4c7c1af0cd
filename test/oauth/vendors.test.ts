import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createApp } from '../../src/app.ts';
import { ConfigError } from '../../src/config.ts';
import type { AppContext } from '../../src/http/context.ts';
import { findClient, redirectUriMatches } from '../../src/oauth/clients/clients.ts';
import { ensureVendorClients, loadVendors } from '../../src/oauth/clients/vendors.ts';
import { openDatabase } from '../../src/store/database.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

const BUILT_IN = [
  'bolt',
  'chatgpt',
  'claude',
  'claude-code',
  'codex',
  'cursor',
  'lovable',
  'replit',
  'vscode',
  'windsurf',
];
const PINNED_DOCUMENTS = [
  'https://chatgpt.com/oauth/client.json',
  'https://chatgpt.com/oauth/codex/client.json',
  'https://claude.ai/oauth/claude-code-client-metadata',
  'https://claude.ai/oauth/mcp-oauth-client-metadata',
  'https://vscode.dev/oauth/client-metadata.json',
];

describe('vendor integrations (product.md §3)', () => {
  let dir: string;
  let t: TestApp;
  const file = (name: string, body: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, typeof body === 'string' ? body : JSON.stringify(body));
    return path;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lectern-vendors-'));
    t = await createTestApp({
      VENDORS_FILE: file('vendors.json', {
        vendors: [
          {
            client_id: 'acme',
            client_name: 'Acme Agent',
            names: ['acme'],
            redirect_uris: ['https://agent.acme.example/oauth/callback'],
          },
          {
            client_id: 'lovable',
            client_name: 'Lovable',
            redirect_uris: ['https://lovable.dev/corrected/callback'],
          },
        ],
      }),
    });
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stores every built-in vendor as a public kind-vendor client with a fixed client_id', async () => {
    await ensureVendorClients(t.runtime);
    const rows = await t.runtime.db
      .selectFrom('oauth_clients')
      .select(['id', 'kind', 'token_endpoint_auth_method'])
      .where('kind', '=', 'vendor')
      .orderBy('id')
      .execute();
    assert.deepEqual(
      rows.map((r) => r.id),
      // lectern-api-reference: the /docs console, a first-party client of the same shape.
      ['acme', ...BUILT_IN, 'lectern-api-reference', ...PINNED_DOCUMENTS].sort(),
    );
    assert.ok(rows.every((r) => r.token_endpoint_auth_method === 'none'));
    const claude = await findClient(t.runtime, 'claude');
    assert.deepEqual(claude?.redirectUris, [
      'https://claude.ai/api/mcp/auth_callback',
      'https://claude.com/api/mcp/auth_callback',
    ]);
    const chatgpt = await findClient(t.runtime, 'chatgpt');
    assert.ok(chatgpt);
    assert.equal(claude?.applicationType, 'web');
    assert.equal((await findClient(t.runtime, 'cursor'))?.applicationType, 'native');
    assert.equal(redirectUriMatches(chatgpt, 'https://chatgpt.com/connector_platform_oauth_redirect'), true);
    assert.equal(redirectUriMatches(chatgpt, 'https://chatgpt.com/connector/oauth/abc123'), true);
    const vscode = await findClient(t.runtime, 'vscode');
    assert.ok(vscode);
    assert.equal(redirectUriMatches(vscode, 'http://127.0.0.1:33418/'), true);
    assert.equal(redirectUriMatches(vscode, 'https://vscode.dev/redirect'), true);
    assert.equal(redirectUriMatches(vscode, 'https://insiders.vscode.dev/redirect'), true);
    const cursor = await findClient(t.runtime, 'cursor');
    assert.ok(cursor);
    for (const uri of [
      'http://localhost:8787/callback',
      'https://www.cursor.com/agents/mcp/oauth/callback',
      'cursor://anysphere.cursor-mcp/oauth/callback',
    ]) {
      assert.equal(redirectUriMatches(cursor, uri), true, uri);
    }
  });

  it("VS Code's real registration bodies, Insiders' included, register as the vscode integration", async () => {
    // microsoft/vscode src/vs/base/common/oauth.ts fetchDynamicRegistration: client_name is the
    // product's appName; the four redirect URIs come in one request for both builds.
    for (const clientName of ['Visual Studio Code - Insiders', 'Visual Studio Code']) {
      const res = await t.request('/api/oauth/register', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          client_name: clientName,
          client_uri: 'https://code.visualstudio.com',
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          redirect_uris: [
            'https://insiders.vscode.dev/redirect',
            'https://vscode.dev/redirect',
            'http://127.0.0.1/',
            'http://127.0.0.1:33418/',
          ],
          token_endpoint_auth_method: 'none',
          application_type: 'native',
        }),
      });
      const body = await res.json();
      assert.equal(res.status, 201, `${clientName}: ${JSON.stringify(body)}`);
      assert.equal(body.client_id, 'vscode');
      assert.equal(body.token_endpoint_auth_method, 'none');
    }
  });

  it("a vendor's own metadata-document URL is answered from the list: no fetch, no allowlist needed", async () => {
    // This app has an empty CIMD allowlist and no fetch exemptions: only the pinned row can answer.
    assert.deepEqual(t.config.cimd.allowedHosts, []);
    const claude = await findClient(t.runtime, 'https://claude.ai/oauth/mcp-oauth-client-metadata');
    assert.equal(claude?.kind, 'vendor');
    assert.equal(claude?.name, 'Claude');
    assert.equal(claude?.reviewed, true);
    assert.equal(redirectUriMatches(claude!, 'https://claude.ai/api/mcp/auth_callback'), true);
    assert.equal(redirectUriMatches(claude!, 'http://localhost:4000/callback'), false);
    const code = await findClient(t.runtime, 'https://claude.ai/oauth/claude-code-client-metadata');
    assert.equal(code?.name, 'Claude Code');
    assert.equal(redirectUriMatches(code!, 'http://localhost:53682/callback'), true);
    assert.equal(redirectUriMatches(code!, 'https://claude.ai/api/mcp/auth_callback'), false);
    const chatgpt = await findClient(t.runtime, 'https://chatgpt.com/oauth/client.json');
    assert.equal(redirectUriMatches(chatgpt!, 'https://chatgpt.com/connector_platform_oauth_redirect'), true);
    // Exact URLs only: another document on the same host is an ordinary CIMD client (here refused).
    assert.equal(await findClient(t.runtime, 'https://claude.ai/oauth/other-client-metadata'), undefined);
  });

  it('VENDORS_FILE adds vendors and corrects built-in ones; registration finds them by name', async () => {
    const lovable = await findClient(t.runtime, 'lovable');
    assert.deepEqual(lovable?.redirectUris, ['https://lovable.dev/corrected/callback']);
    const res = await t.request('/api/oauth/register', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        client_name: 'ACME',
        redirect_uris: ['https://agent.acme.example/oauth/callback'],
      }),
    });
    assert.equal(res.status, 201);
    assert.equal((await res.json()).client_id, 'acme');
  });

  it('a later start with a changed list updates the stored vendor rows, and never takes over other clients', async () => {
    const now = new Date().toISOString();
    await t.runtime.db
      .insertInto('oauth_clients')
      .values({
        id: 'taken',
        kind: 'loopback',
        name: 'Someone',
        school_id: null,
        token_endpoint_auth_method: 'none',
        secret_hash: null,
        redirect_uris: '["http://127.0.0.1/cb"]',
        allowed_scopes: null,
        application_type: 'native',
        metadata: '{}',
        reviewed: 0,
        metadata_fetched_at: null,
        metadata_expires_at: null,
        created_by_user_id: null,
        secret_rotated_at: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const db = openDatabase(t.database.options);
    try {
      const vendorsFile = file('v2.json', {
        vendors: [
          {
            client_id: 'acme',
            client_name: 'Acme Agent',
            redirect_uris: ['https://agent.acme.example/v2/callback'],
          },
          { client_id: 'taken', client_name: 'Taken', redirect_uris: ['https://taken.example/cb'] },
        ],
      });
      const next: AppContext = { ...t.runtime, db, config: { ...t.config, vendorsFile } };
      await ensureVendorClients(next);
      await ensureVendorClients(next);
    } finally {
      await db.destroy();
    }
    assert.deepEqual((await findClient(t.runtime, 'acme'))?.redirectUris, [
      'https://agent.acme.example/v2/callback',
    ]);
    const taken = await findClient(t.runtime, 'taken');
    assert.equal(taken?.kind, 'loopback');
    assert.deepEqual(taken?.redirectUris, ['http://127.0.0.1/cb']);
  });

  it('a bad VENDORS_FILE stops the start with a ConfigError naming the problem', async () => {
    const cases: [unknown, RegExp][] = [
      ['{not json', /not valid JSON/],
      [
        { vendors: [{ client_id: 'x!', client_name: 'X', redirect_uris: ['https://x.example/cb'] }] },
        /client_id/,
      ],
      [
        { vendors: [{ client_id: 'evil', client_name: 'Evil', redirect_uris: ['javascript:alert(1)'] }] },
        /redirect_uris/,
      ],
      [
        { vendors: [{ client_id: 'evil', client_name: 'Evil', redirect_uris: ['http://evil.example/cb'] }] },
        /redirect_uris/,
      ],
      [
        { vendors: [{ client_id: 'frag', client_name: 'Frag', redirect_uris: ['https://x.example/cb#f'] }] },
        /redirect_uris/,
      ],
      [
        {
          vendors: [
            { client_id: 'pre', client_name: 'Pre', redirect_uri_prefixes: ['https://x.example/cb'] },
          ],
        },
        /redirect_uri_prefixes/,
      ],
      [{ vendors: [{ client_id: 'none', client_name: 'None' }] }, /no redirect URI/],
      [
        {
          vendors: [
            {
              client_id: 'qq',
              client_name: 'Q',
              redirect_uris: ['https://q.example/cb'],
              metadata_document_urls: ['https://q.example/client.json?v=1'],
            },
          ],
        },
        /metadata_document_urls/,
      ],
      [
        {
          vendors: [
            {
              client_id: 'dup',
              client_name: 'Dup',
              redirect_uris: ['https://dup.example/cb'],
              metadata_document_urls: ['https://vscode.dev/oauth/client-metadata.json'],
            },
          ],
        },
        /belongs to both/,
      ],
      [
        {
          vendors: [{ client_id: 'fake', client_name: 'Claude', redirect_uris: ['https://fake.example/cb'] }],
        },
        /belongs to both/,
      ],
    ];
    const load = (vendorsFile: string) => loadVendors({ ...t.config, vendorsFile });
    for (const [i, [body, message]] of cases.entries()) {
      assert.throws(
        () => load(file(`bad-${i}.json`, body)),
        (err: unknown) => err instanceof ConfigError && message.test(err.message),
        String(message),
      );
    }
    assert.throws(() => load(join(dir, 'missing.json')), ConfigError);
    // The app factory loads the list, so a bad file fails the start itself.
    const start = (vendorsFile: string) => createApp({ ...t.runtime, config: { ...t.config, vendorsFile } });
    assert.throws(() => start(join(dir, 'bad-0.json')), /VENDORS_FILE .*not valid JSON/);
  });
});
