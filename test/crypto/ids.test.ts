import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId } from '../../src/crypto/ids.ts';

// Ids order rows and serve as cursors, so ids made one after another must sort in that order
// even within one millisecond (ULID spec, "Monotonicity").
describe('newId', () => {
  it('10 000 ids made in a tight loop are unique and strictly increasing', () => {
    const ids = Array.from({ length: 10_000 }, () => newId('tst'));
    assert.equal(new Set(ids).size, ids.length);
    for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1] < ids[i], `${ids[i - 1]} < ${ids[i]}`);
  });

  it('ids made for one given millisecond are strictly increasing too', () => {
    const at = Date.parse('2026-01-01T00:00:00Z');
    const ids = Array.from({ length: 1000 }, () => newId('tst', at));
    for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1] < ids[i]);
    assert.ok(ids.every((id) => id.slice(4, 14) === ids[0].slice(4, 14)));
  });

  it('keeps the format: prefix, underscore, 26 lower-case Crockford base32 characters', () => {
    const id = newId('grt');
    assert.match(id, /^grt_[0-9a-hjkmnp-tv-z]{26}$/);
  });

  it('encodes the millisecond in the first ten characters, as before', () => {
    assert.equal(newId('a', 0).slice(2, 12), '0000000000');
    assert.equal(newId('a', 2 ** 48 - 1).slice(2, 12), '7zzzzzzzzz');
  });
});
