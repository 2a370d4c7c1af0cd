import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

const base = { NODE_ENV: 'test', DATABASE_URL: ':memory:' };

describe('STRIPE_API_BASE', () => {
  it('defaults to Stripe’s API origin', () => {
    assert.equal(loadConfig(base).stripe.apiBase, 'https://api.stripe.com');
  });

  it('takes an origin, such as a stand-in on loopback', () => {
    assert.equal(
      loadConfig({ ...base, STRIPE_API_BASE: 'http://127.0.0.1:4242/' }).stripe.apiBase,
      'http://127.0.0.1:4242',
    );
  });

  for (const bad of [
    'api.stripe.com',
    'ftp://api.stripe.com',
    'https://api.stripe.com/v1',
    'https://u:p@api.stripe.com',
  ]) {
    it(`refuses ${bad}, naming the variable`, () => {
      assert.throws(
        () => loadConfig({ ...base, STRIPE_API_BASE: bad }),
        (err: unknown) => err instanceof ConfigError && err.message.startsWith('STRIPE_API_BASE: '),
      );
    });
  }
});
