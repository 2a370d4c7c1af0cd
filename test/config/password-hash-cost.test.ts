/**
 * PASSWORD_HASH_COST: the test suite hashes at argon2id's smallest cost, and nothing else may.
 * The standard cost is OWASP's Password Storage Cheat Sheet for argon2id (m=19 MiB, t=2, p=1).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { createTestApp } from '../support/app.ts';
import { Browser, signIn } from '../support/oauth-flow.ts';
import { createWorld } from '../support/world.ts';

const SECRET = randomBytes(32).toString('base64url');

function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    assert.ok(err instanceof ConfigError, `expected ConfigError, got ${err}`);
    return err.message;
  }
  assert.fail('expected a ConfigError');
}

/**
 * The stored hash of a demo account, made by the seed through the app's start-up settings, once
 * the owner has signed in with it (the /login form's 303 to the return address).
 */
async function ownerHash(env: Record<string, string>): Promise<string> {
  const t = await createTestApp(env);
  try {
    await createWorld(t);
    const res = await signIn(new Browser(t), 'owner@example.com', { returnTo: '/account' });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), '/account');
    const row = await t.runtime.db
      .selectFrom('users')
      .select('password_hash')
      .where('email', '=', 'owner@example.com')
      .executeTakeFirstOrThrow();
    return row.password_hash ?? '';
  } finally {
    await t.close();
  }
}

describe('the cost of password hashes', () => {
  it('is the standard one unless set, and production refuses any other', () => {
    assert.equal(loadConfig({ LECTERN_SECRET: SECRET }).passwordHashCost, 'standard');
    assert.equal(loadConfig({ LECTERN_SECRET: SECRET, NODE_ENV: 'production' }).passwordHashCost, 'standard');
    assert.equal(loadConfig({ LECTERN_SECRET: SECRET, PASSWORD_HASH_COST: 'test' }).passwordHashCost, 'test');
    assert.equal(
      refusal({ LECTERN_SECRET: SECRET, NODE_ENV: 'production', PASSWORD_HASH_COST: 'test' }),
      'PASSWORD_HASH_COST: production always hashes passwords at the standard cost',
    );
    assert.match(refusal({ LECTERN_SECRET: SECRET, PASSWORD_HASH_COST: 'cheap' }), /^PASSWORD_HASH_COST: /);
  });

  it('standard: argon2id with m=19456 KiB, t=2, p=1; test: its smallest, and either signs in', async () => {
    assert.match(await ownerHash({ PASSWORD_HASH_COST: 'standard' }), /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    assert.match(await ownerHash({}), /^\$argon2id\$v=19\$m=8,t=1,p=1\$/);
  });
});
