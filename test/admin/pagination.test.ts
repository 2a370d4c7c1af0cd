/**
 * Generated from the catalogue: every list operation walks page by page (limit=1, following
 * next_cursor) to exactly what one large page returns, refuses limit=101, and refuses a cursor
 * naming another school's row (keyset paging relative to it would bracket its values).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminOperations } from '../../src/admin/catalogue.ts';
import { pageItems } from '../../src/admin/schemas.ts';
import { encodeCursor } from '../../src/domain/kernel/pagination.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { schoolFixture } from '../support/world.ts';
import { type Resources, seedResources } from '../support/world-resources.ts';
import { api } from './api.ts';

const lists = adminOperations.filter((op) => op.output && pageItems.has(op.output));

describe('every list operation paginates', () => {
  let t: TestApp;
  let w: Resources;
  let call: ReturnType<typeof api>;
  let other: Resources;
  let callOther: ReturnType<typeof api>;
  before(async () => {
    t = await createTestApp();
    const s = await schoolFixture(t);
    w = await seedResources(t, s, 'a');
    await seedResources(t, s, 'b');
    call = api(t, await s.token());
    const o = await schoolFixture(t, 'Other School');
    other = await seedResources(t, o, 'o');
    callOther = api(t, await o.token());
  });
  after(() => t.close());

  it('covers the list operations of the catalogue', () => {
    assert.ok(lists.length >= 17, `${lists.length} list operations`);
  });

  for (const op of lists) {
    it(`${op.name}: limit=1 pages add up to one page of 100`, async () => {
      const path = op.path.replace(/\{(\w+)\}/g, (_, p: string) => w[p]);
      const all = await call('GET', `${path}?limit=100`);
      assert.equal(all.status, 200);
      assert.equal(all.body.next_cursor, null);
      const walked: unknown[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const r = await call('GET', `${path}?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
        assert.equal(r.status, 200);
        assert.ok(r.body.data.length <= 1);
        walked.push(...r.body.data);
        cursor = r.body.next_cursor;
        assert.ok(++pages <= 200, 'terminates');
      } while (cursor);
      assert.deepEqual(walked, all.body.data);
      // Two seeded worlds: every school-wide list spans at least two pages.
      if (!op.input.params) assert.ok(pages >= 2, `${op.name} walked ${pages} page(s)`);
      const tooBig = await call('GET', `${path}?limit=101`);
      assert.equal(tooBig.status, 422);
      assert.equal(tooBig.body.errors[0].field, 'query.limit');
    });
  }

  for (const op of lists) {
    it(`${op.name}: a cursor naming another school's row is 400 invalid_cursor`, async () => {
      const otherPath = op.path.replace(/\{(\w+)\}/g, (_, p: string) => other[p]);
      const theirs = await callOther('GET', `${otherPath}?limit=100`);
      assert.equal(theirs.status, 200);
      assert.ok(theirs.body.data.length > 0, `Other School has ${op.name} rows`);
      const path = op.path.replace(/\{(\w+)\}/g, (_, p: string) => w[p]);
      for (const row of theirs.body.data as Array<{ id: string }>) {
        const r = await call('GET', `${path}?limit=1&cursor=${encodeCursor(row.id)}`);
        assert.equal(r.status, 400, `${op.name} with Other School's ${row.id}`);
        assert.equal(r.headers.get('content-type'), 'application/problem+json');
        assert.deepEqual(r.body, {
          type: 'about:blank',
          title: 'Bad Request',
          status: 400,
          code: 'invalid_cursor',
          detail: 'The cursor is not one this API returned.',
          instance: path,
          request_id: r.headers.get('x-request-id'),
        });
      }
    });
  }
});
