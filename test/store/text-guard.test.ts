import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ProblemError } from '../../src/errors/problem-error.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { createWorld, type World } from '../support/world.ts';

// PostgreSQL cannot store U+0000 in text; the store refuses it on both engines so bad input is
// a 400 in each surface's format, never a 500, and nothing is written.
describe('NUL characters are refused before storage', () => {
  let t: TestApp;
  let world: World;
  before(async () => {
    t = await createTestApp();
    world = await createWorld(t);
  });
  after(() => t.close());

  it('the store raises a 400 invalid_text problem and writes nothing', async () => {
    const db = t.runtime.db;
    await assert.rejects(
      db.updateTable('users').set({ name: 'a\u0000b' }).where('email', '=', 'owner@example.com').execute(),
      (err: unknown) => err instanceof ProblemError && err.status === 400 && err.code === 'invalid_text',
    );
    const owner = await db
      .selectFrom('users')
      .select('name')
      .where('email', '=', 'owner@example.com')
      .executeTakeFirst();
    assert.equal(owner?.name, 'Olivia Owner');
    // Inside a transaction too, and the transaction still rolls back cleanly.
    await assert.rejects(
      db.transaction().execute(async (tx) => {
        await tx
          .updateTable('users')
          .set({ name: 'changed' })
          .where('email', '=', 'owner@example.com')
          .execute();
        await tx.selectFrom('users').selectAll().where('email', '=', '\u0000').execute();
      }),
      ProblemError,
    );
    const again = await db
      .selectFrom('users')
      .select('name')
      .where('email', '=', 'owner@example.com')
      .executeTakeFirst();
    assert.equal(again?.name, 'Olivia Owner');
  });

  it('savepoints pass through the guard to the real driver and really roll back', async () => {
    const db = t.runtime.db;
    const trx = await db.startTransaction().execute();
    await trx
      .updateTable('users')
      .set({ name: 'Kept' })
      .where('email', '=', 'lecturer@example.com')
      .execute();
    const sp = await trx.savepoint('before_change').execute();
    await sp
      .updateTable('users')
      .set({ name: 'Undone' })
      .where('email', '=', 'lecturer@example.com')
      .execute();
    const back = await sp.rollbackToSavepoint('before_change').execute();
    await back.commit().execute();
    const row = await db
      .selectFrom('users')
      .select('name')
      .where('email', '=', 'lecturer@example.com')
      .executeTakeFirst();
    assert.equal(row?.name, 'Kept');
  });

  it('registration answers RFC 6749 JSON invalid_request', async () => {
    const res = await t.request('/api/oauth/register', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_name: 'a\u0000b', redirect_uris: ['http://127.0.0.1/cb'] }),
    });
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), {
      error: 'invalid_request',
      error_description: 'Text values must not contain NUL (U+0000) characters.',
    });
  });

  it('the admin API answers problem+json invalid_text, in bodies and queries', async () => {
    const db = t.runtime.db;
    const token = await world.demo.token(['courses:write']);
    const created = await t.request('/api/v1/courses', {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ title: 'x\u0000y', slug: 'nul-course' }),
    });
    assert.equal(created.status, 400);
    assert.equal(created.headers.get('content-type'), 'application/problem+json');
    assert.equal((await created.json()).code, 'invalid_text');
    const searched = await t.request('/api/v1/courses?search=a%00b', {
      headers: { Authorization: `Bearer ${token}` },
    });
    assert.equal(searched.status, 400);
    assert.equal((await searched.json()).code, 'invalid_text');
    const stored = await db.selectFrom('courses').select('id').where('slug', '=', 'nul-course').execute();
    assert.equal(stored.length, 0);
  });
});
