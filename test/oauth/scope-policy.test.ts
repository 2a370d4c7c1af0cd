import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OAuthError } from '../../src/errors/oauth-error.ts';
import type { OAuthClient } from '../../src/oauth/clients/clients.ts';
import { decideScopes, mayBeGranted, narrowScopes } from '../../src/oauth/scope-policy.ts';
import { OPERATOR_READ_SCOPES } from '../../src/oauth/scopes.ts';

function client(kind: OAuthClient['kind'], extra: Partial<OAuthClient> = {}): OAuthClient {
  return {
    id: `c-${kind}`,
    kind,
    name: kind,
    schoolId: kind === 'member' ? 'sch_1' : null,
    authMethod: 'none',
    secretHash: null,
    redirectUris: [],
    redirectUriPrefixes: [],
    allowedScopes: null,
    reviewed: kind !== 'cimd',
    applicationType: 'native',
    ...extra,
  };
}

const invalidScope = (pattern: RegExp) => (err: unknown) =>
  err instanceof OAuthError && err.error === 'invalid_scope' && pattern.test(err.description);

describe('scope policy (product.md §3–§4, spec §5.3)', () => {
  it('operator clients get what they ask, in catalogue order', () => {
    for (const kind of ['vendor', 'loopback', 'cimd'] as const) {
      const d = decideScopes(client(kind, { reviewed: true }), 'courses:write openid offline_access');
      assert.equal(d.audience, 'operator');
      assert.deepEqual(d.scopes, ['openid', 'offline_access', 'courses:write']);
    }
  });

  it('account:read from an operator client → invalid_scope (spec §5.3)', () => {
    for (const kind of ['vendor', 'loopback', 'cimd'] as const) {
      assert.throws(
        () => decideScopes(client(kind), 'openid account:read'),
        invalidScope(/account:read is reserved/),
      );
      assert.throws(() => decideScopes(client(kind), 'account:write'), invalidScope(/account:write/));
    }
  });

  it('unknown scope names → invalid_scope, never dropped, for every kind', () => {
    for (const kind of ['vendor', 'loopback', 'cimd', 'member'] as const) {
      assert.throws(
        () => decideScopes(client(kind), 'openid courses:delete'),
        invalidScope(/Unknown scope: courses:delete/),
      );
    }
  });

  it('RFC 6749 §3.3: empty names (leading, trailing, doubled spaces) are malformed; repeats count once', () => {
    for (const value of [' openid', 'openid ', 'openid  courses:read', ' ']) {
      assert.throws(() => decideScopes(client('loopback'), value), invalidScope(/malformed/), value);
    }
    assert.deepEqual(decideScopes(client('loopback'), 'courses:read openid courses:read').scopes, [
      'openid',
      'courses:read',
    ]);
  });

  it('RFC 6749 §3.3: an omitted or empty scope gets the audience default within what the client may hold', () => {
    const operatorDefault = ['openid', 'profile', 'email', ...OPERATOR_READ_SCOPES];
    for (const kind of ['vendor', 'loopback', 'cimd'] as const) {
      for (const value of [undefined, '']) {
        const d = decideScopes(client(kind), value);
        assert.equal(d.audience, 'operator');
        assert.deepEqual(d.scopes, operatorDefault, `${kind} ${value}`);
      }
    }
    assert.deepEqual(decideScopes(client('member'), undefined), {
      audience: 'member',
      scopes: ['openid', 'account:read'],
    });
    // Within what the operator configured for the member app.
    const readOnlyProfile = client('member', { allowedScopes: ['openid', 'profile'] });
    assert.deepEqual(decideScopes(readOnlyProfile, undefined).scopes, ['openid']);
    assert.throws(
      () => decideScopes(client('member', { allowedScopes: ['profile'] }), undefined),
      invalidScope(/no default; it may ask for: profile/),
    );
  });

  it('mayBeGranted is the rule the policy applies', () => {
    assert.equal(mayBeGranted(client('loopback'), 'courses:write'), true);
    assert.equal(mayBeGranted(client('loopback'), 'account:read'), false);
    assert.equal(mayBeGranted(client('cimd', { reviewed: false }), 'courses:write'), false);
    assert.equal(mayBeGranted(client('cimd', { reviewed: false }), 'courses:read'), true);
    assert.equal(mayBeGranted(client('member'), 'account:write'), true);
    assert.equal(mayBeGranted(client('member'), 'courses:read'), false);
    assert.equal(
      mayBeGranted(client('member', { allowedScopes: ['openid', 'account:read'] }), 'account:write'),
      false,
    );
  });

  it('unreviewed CIMD: *:read and identity scopes only (spec §2.2)', () => {
    const unreviewed = client('cimd', { reviewed: false });
    assert.deepEqual(
      decideScopes(unreviewed, 'openid profile email offline_access courses:read analytics:read').scopes,
      ['openid', 'profile', 'email', 'offline_access', 'courses:read', 'analytics:read'],
    );
    assert.throws(
      () => decideScopes(unreviewed, 'openid courses:write'),
      invalidScope(/not reviewed.*courses:write/),
    );
    assert.throws(() => decideScopes(unreviewed, 'storage:write'), invalidScope(/storage:write/));
    assert.deepEqual(decideScopes(client('cimd', { reviewed: true }), 'courses:write').scopes, [
      'courses:write',
    ]);
  });

  it('member app: the requested scopes its operator allowed, the rest left out; none allowed → invalid_scope', () => {
    const app = client('member', { allowedScopes: ['openid', 'email', 'account:read'] });
    const d = decideScopes(app, 'openid profile account:read account:write');
    assert.equal(d.audience, 'member');
    assert.deepEqual(d.scopes, ['openid', 'account:read']);
    assert.throws(
      () => decideScopes(app, 'profile account:write'),
      invalidScope(/None of the requested scopes/),
    );
    assert.throws(() => decideScopes(app, 'offline_access'), invalidScope(/None/));
  });

  it('member app: operator scopes are never granted, even if configured', () => {
    const app = client('member', { allowedScopes: ['account:read', 'courses:read'] });
    assert.deepEqual(decideScopes(app, 'account:read courses:read').scopes, ['account:read']);
  });

  it('refresh narrowing: subset allowed, omitted = everything granted, broadening → invalid_scope', () => {
    const granted = ['openid', 'courses:read', 'courses:write'];
    assert.deepEqual(narrowScopes(granted, undefined), granted);
    assert.deepEqual(narrowScopes(granted, 'courses:write openid'), ['openid', 'courses:write']);
    assert.throws(
      () => narrowScopes(granted, 'openid students:read'),
      invalidScope(/students:read was not granted/),
    );
    assert.throws(() => narrowScopes(granted, ' '), invalidScope(/empty/));
  });
});
