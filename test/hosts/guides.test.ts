/**
 * /auth.md section 7 as the hosts' users read it: every configuration snippet parses as the host
 * reads it (JSON, or TOML for Codex), names BASE_URL/mcp, and any scopes it names are granted to
 * that host's client exactly as written (no `account:*`, nothing dropped); every anchor an
 * `invalid_scope` description or /llms.txt links to is a heading of the document.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OAuthError } from '../../src/errors/oauth-error.ts';
import { findClient } from '../../src/oauth/clients/clients.ts';
import { decideScopes, guideSection, HOST_GUIDE_SECTIONS } from '../../src/oauth/scope-policy.ts';
import { docBlocks } from '../support/doc-runner.ts';
import {
  assertErrorDescriptionCharset,
  assertGrantedExactly,
  authMdSection,
  HostNetwork,
  type HostWorld,
  headingAnchors,
  parseToml,
  startHostWorld,
} from './support.ts';

/** Each host's client as it comes to Lectern (section 7's table). */
async function hostClientId(h: HostWorld, heading: string): Promise<string> {
  if (heading === '### Codex CLI') return 'https://chatgpt.com/oauth/codex/client.json';
  if (heading === '### Gemini CLI') {
    const res = await new HostNetwork(h.t).postJson(`${h.base}/api/oauth/register`, {
      client_name: 'Gemini CLI MCP Client',
      redirect_uris: ['http://localhost:50123/oauth/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: '',
    });
    assert.equal(res.status, 201);
    return ((await res.json()) as { client_id: string }).client_id;
  }
  throw new Error(`no client for ${heading}`);
}

/** Every `scopes` list anywhere in a parsed snippet. */
function scopeLists(value: unknown): string[][] {
  if (!value || typeof value !== 'object') return [];
  const lists: string[][] = [];
  for (const [key, v] of Object.entries(value)) {
    if (key === 'scopes') {
      assert.ok(Array.isArray(v) && v.every((s) => typeof s === 'string'), 'scopes is a list of names');
      lists.push(v as string[]);
    } else lists.push(...scopeLists(v));
  }
  return lists;
}

describe('/auth.md section 7: the hosts’ configuration snippets and the links to them', () => {
  let h: HostWorld;
  before(async () => {
    h = await startHostWorld();
  });
  after(() => h.close());

  it('every JSON and TOML snippet parses, names BASE_URL/mcp, and the scopes it names are exactly what that host’s client is granted', async () => {
    const section = await authMdSection(h.t, '## 7. AI hosts');
    const blocks = docBlocks(section).filter((b) => b.lang === 'json' || b.lang === 'toml');
    assert.deepEqual(
      blocks.map((b) => `${b.heading} ${b.lang}`),
      [
        '### Cursor json',
        '### VS Code json',
        '### Codex CLI toml',
        '### Gemini CLI json',
        '### Windsurf json',
      ],
    );
    let checked = 0;
    for (const block of blocks) {
      const parsed: unknown = block.lang === 'toml' ? parseToml(block.code) : JSON.parse(block.code);
      assert.ok(block.code.includes(`"${h.mcpUrl}"`), `${block.heading} names ${h.mcpUrl}`);
      for (const scopes of scopeLists(parsed)) {
        assert.ok(!scopes.some((s) => s.startsWith('account:')), `${block.heading}: no member scope`);
        await assertGrantedExactly(h.t, await hostClientId(h, block.heading), scopes);
        checked++;
      }
    }
    assert.equal(checked, 2, 'the Codex CLI and Gemini CLI snippets name scopes');
  });

  it('each host’s invalid_scope for account scopes links to a heading of /auth.md, in RFC 6749 error_description characters', async () => {
    const text = await (await h.t.request('/auth.md')).text();
    const anchors = headingAnchors(text);
    for (const anchor of [...Object.values(HOST_GUIDE_SECTIONS), '3-audiences-and-scopes']) {
      assert.ok(anchors.has(anchor), `#${anchor} in /auth.md`);
    }
    for (const id of ['codex', 'claude', 'claude-code', 'chatgpt', 'cursor', 'vscode', 'windsurf']) {
      const client = await findClient(h.t.runtime, id);
      assert.ok(client, id);
      assert.throws(
        () => decideScopes(client, 'openid courses:read account:read account:write', h.t.config.baseUrl),
        (err: unknown) => {
          assert.ok(err instanceof OAuthError);
          assert.equal(err.error, 'invalid_scope');
          assert.ok(err.description.includes(`${h.base}/auth.md#${guideSection(client)}`), err.description);
          assert.notEqual(guideSection(client), '3-audiences-and-scopes', id);
          assertErrorDescriptionCharset(err.description);
          return true;
        },
      );
    }
  });

  it('/llms.txt links each host to its part of /auth.md', async () => {
    const text = await (await h.t.request('/auth.md')).text();
    const anchors = headingAnchors(text);
    const llms = await (await h.t.request('/llms.txt')).text();
    const links = [...llms.matchAll(/\]\(([^)]+\/auth\.md#([^)]+))\)/g)];
    assert.deepEqual(
      links.map((m) => m[2]),
      [
        'claude-claudeai-and-claude-code',
        'chatgpt',
        'cursor',
        'vs-code',
        'codex-cli',
        'gemini-cli',
        'windsurf',
      ],
    );
    for (const [, url, anchor] of links) {
      assert.ok(url.startsWith(`${h.base}/auth.md#`), url);
      assert.ok(anchors.has(anchor), anchor);
    }
  });
});
