/**
 * The demo school (product.md §9) read through every argument-free list and read of the admin
 * API: seeded data must fit the published response schemas, not only data written through the API.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminOperations } from '../../src/admin/catalogue.ts';
import { OPERATOR_SCOPES } from '../../src/oauth/scopes.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { createWorld } from '../support/world.ts';
import { api } from './api.ts';

describe('admin API on the demo data', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());
  it('every argument-free read of the demo school matches its schema', async () => {
    const { demo } = await createWorld(t);
    const call = api(t, await demo.token(OPERATOR_SCOPES));
    for (const op of adminOperations.filter((o) => o.method === 'GET' && !o.input.params && !o.binary)) {
      const r = await call('GET', `${op.path}?${op.name.startsWith('analytics') ? '' : 'limit=100'}`);
      assert.equal(r.status, 200, op.name);
      const parsed = op.output!.safeParse(r.body);
      assert.ok(parsed.success, `${op.name}: ${parsed.error?.message}`);
      assert.deepEqual(parsed.data, r.body, op.name);
    }
  });
});
