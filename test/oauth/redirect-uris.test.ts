import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OAuthClient } from '../../src/oauth/clients/clients.ts';
import { redirectUriMatches } from '../../src/oauth/clients/clients.ts';
import { isLoopbackRedirectUri } from '../../src/oauth/clients/redirect-uris.ts';

const client = (redirectUris: string[], redirectUriPrefixes: string[] = []): OAuthClient => ({
  id: 'c',
  kind: 'loopback',
  name: 'c',
  schoolId: null,
  authMethod: 'none',
  secretHash: null,
  redirectUris,
  redirectUriPrefixes,
  allowedScopes: null,
  reviewed: false,
  applicationType: 'native',
});

describe('redirect URI matching', () => {
  it('loopback form: http on 127.0.0.1, [::1] or localhost, any port, no fragment or credentials (RFC 8252 §7.3)', () => {
    for (const uri of [
      'http://127.0.0.1/cb',
      'http://127.0.0.1:1/cb',
      'http://127.0.0.1:65535',
      'http://[::1]:8080/callback?x=1',
      'http://localhost:3000/oauth/callback',
    ]) {
      assert.equal(isLoopbackRedirectUri(uri), true, uri);
    }
    for (const uri of [
      'https://127.0.0.1/cb',
      'http://127.0.0.2/cb',
      'http://127.0.0.1:0/cb',
      'http://127.0.0.1:65536/cb',
      'http://127.0.0.1/cb#frag',
      'http://user@127.0.0.1/cb',
      'http://127.0.0.1@evil.example/cb',
      'http://127.0.0.1.evil.example/cb',
      'http://localhost.evil.example/cb',
      'http://LOCALHOST/cb',
      'http://[::1].evil/cb',
      'http://127.0.0.1/c b',
      'http://0x7f000001/cb',
    ]) {
      assert.equal(isLoopbackRedirectUri(uri), false, uri);
    }
  });

  it('RFC 8252 §7.3: a registered loopback URI matches on any port, same host, path and query', () => {
    const c = client(['http://127.0.0.1/callback', 'http://localhost:8080/cb?a=1']);
    assert.equal(redirectUriMatches(c, 'http://127.0.0.1/callback'), true);
    assert.equal(redirectUriMatches(c, 'http://127.0.0.1:51234/callback'), true);
    assert.equal(redirectUriMatches(c, 'http://localhost:9999/cb?a=1'), true);
    assert.equal(redirectUriMatches(c, 'http://localhost/cb?a=1'), true);
    assert.equal(redirectUriMatches(c, 'http://127.0.0.1:51234/callback/'), false);
    assert.equal(redirectUriMatches(c, 'http://127.0.0.1:51234/Callback'), false);
    assert.equal(redirectUriMatches(c, 'http://127.0.0.1:51234/callback?x=1'), false);
    assert.equal(redirectUriMatches(c, 'http://localhost:51234/callback'), false);
    assert.equal(redirectUriMatches(c, 'http://[::1]:51234/callback'), false);
    assert.equal(redirectUriMatches(c, 'http://127.0.0.1:51234/callback#x'), false);
    assert.equal(redirectUriMatches(c, 'https://127.0.0.1:51234/callback'), false);
  });

  it('RFC 3986 §6.2.3: an empty loopback path equals "/" (VS Code registers http://127.0.0.1:33418)', () => {
    const c = client(['http://127.0.0.1:33418']);
    assert.equal(redirectUriMatches(c, 'http://127.0.0.1:33418/'), true);
    assert.equal(redirectUriMatches(c, 'http://127.0.0.1:40000'), true);
    assert.equal(redirectUriMatches(c, 'http://127.0.0.1:33418/x'), false);
  });

  it('RFC 6749 §3.1.2.3: every other URI matches exactly, character for character', () => {
    const c = client(['https://app.example/cb', 'cursor://anysphere.cursor-mcp/oauth/callback']);
    assert.equal(redirectUriMatches(c, 'https://app.example/cb'), true);
    assert.equal(redirectUriMatches(c, 'cursor://anysphere.cursor-mcp/oauth/callback'), true);
    for (const uri of [
      'https://app.example/cb/',
      'https://APP.example/cb',
      'https://app.example:443/cb',
      'https://app.example/cb?x=1',
      'https://app.example/cb#x',
      'https://app.example/./cb',
      'https://app.example/CB',
      'https://app.example:8443/cb',
      'http://app.example/cb',
      'cursor://anysphere.cursor-mcp/oauth/callback/',
    ]) {
      assert.equal(redirectUriMatches(c, uri), false, uri);
    }
  });

  it('a vendor prefix entry admits exactly one plain path segment after it', () => {
    const c = client([], ['https://chatgpt.com/connector/oauth/']);
    assert.equal(redirectUriMatches(c, 'https://chatgpt.com/connector/oauth/FLLrQdlez6Uf'), true);
    assert.equal(redirectUriMatches(c, 'https://chatgpt.com/connector/oauth/a_b-c'), true);
    for (const uri of [
      'https://chatgpt.com/connector/oauth/',
      'https://chatgpt.com/connector/oauth/a/b',
      'https://chatgpt.com/connector/oauth/..',
      'https://chatgpt.com/connector/oauth/%2e%2e',
      'https://chatgpt.com/connector/oauth/a?x=1',
      'https://chatgpt.com/connector/oauth/a#x',
      'https://chatgpt.com/connector/oauth/a.b',
      'https://chatgpt.com/connector/oauthx',
      `https://chatgpt.com/connector/oauth/${'a'.repeat(129)}`,
    ]) {
      assert.equal(redirectUriMatches(c, uri), false, uri);
    }
  });

  it('non-strings and oversized values never match', () => {
    const c = client(['http://127.0.0.1/cb']);
    assert.equal(redirectUriMatches(c, undefined as never), false);
    assert.equal(redirectUriMatches(c, `http://127.0.0.1/${'a'.repeat(3000)}`), false);
  });
});
