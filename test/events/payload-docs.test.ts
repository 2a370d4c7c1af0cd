import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { EVENT_CATALOGUE, EVENT_TYPES, type EventType } from '../../src/events/catalogue.ts';
import { recordEvent } from '../../src/events/outbox.ts';
import { EVENT_DATA_SCHEMAS, EventDataError, eventDataFields } from '../../src/events/payloads.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { type SchoolFixture, schoolFixture } from '../support/world.ts';
import { sampleEventData } from './payload-samples.ts';

const DOCS = new URL('../../docs/webhooks.md', import.meta.url);

/** The names in a data cell: its backticked words, leaving out notes in parentheses. */
function namesIn(cell: string): string[] {
  return [...cell.replace(/\([^)]*\)/g, '').matchAll(/`([^`]+)`/g)].map((m) => m[1]);
}

/** The fields a data cell starts from: none, the previous row's ("as above") or a type's ("as `t`"). */
function startOf(cell: string, previous: string[], fields: Map<string, string[]>, type: string): string[] {
  const base = /^as (above|`[a-z_.]+`)/.exec(cell)?.[1];
  if (base === undefined) return [];
  if (base === 'above') return previous;
  const from = fields.get(base.slice(1, -1));
  assert.ok(from, `${type} is documented as ${base}, which is not documented above it`);
  return from;
}

/**
 * Each documented type's data fields, from the tables of the "Event catalogue" section (`type |
 * when | data`). A data cell lists names, or starts from another row's: "as above" repeats the
 * previous row's fields, "as `<type>`" that type's, and "+ `x`" adds to them.
 */
function documentedFields(markdown: string): Map<string, string[]> {
  const start = markdown.indexOf('\n## Event catalogue');
  const end = markdown.indexOf('\n## ', start + 1);
  const fields = new Map<string, string[]>();
  let previous: string[] = [];
  for (const line of markdown.slice(start, end).split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const type = /^`([a-z_]+\.[a-z_]+)`$/.exec(cells[1] ?? '')?.[1];
    if (!type || cells.length !== 5) continue;
    const names = [...startOf(cells[3], previous, fields, type), ...namesIn(cells[3].replace(/^as \S+/, ''))];
    assert.ok(!fields.has(type), `${type} is documented twice`);
    fields.set(type, names);
    previous = names;
  }
  return fields;
}

describe('event payload schemas and their documentation', () => {
  it('docs/webhooks.md documents every catalogue type once, with exactly its schema’s fields in order', () => {
    const documented = documentedFields(readFileSync(DOCS, 'utf8'));
    assert.deepEqual([...documented.keys()].sort(), [...EVENT_TYPES].sort(), 'the same types');
    for (const type of EVENT_TYPES) {
      assert.deepEqual(documented.get(type), eventDataFields(type), `${type}: docs and schema differ`);
    }
  });

  it('gives every catalogue type a schema, and no other type', () => {
    assert.deepEqual(Object.keys(EVENT_DATA_SCHEMAS).sort(), Object.keys(EVENT_CATALOGUE).sort());
  });

  it('holds every payload to exactly its fields: none missing, none extra, each of its type', () => {
    for (const type of EVENT_TYPES) {
      const schema = EVENT_DATA_SCHEMAS[type];
      const sample: Record<string, unknown> = sampleEventData(type);
      assert.ok(schema.safeParse(sample).success, `${type}: its own sample`);
      assert.ok(!schema.safeParse({ ...sample, extra: 1 }).success, `${type}: an extra key`);
      for (const key of eventDataFields(type)) {
        const { [key]: _, ...missing } = sample;
        assert.ok(!schema.safeParse(missing).success, `${type}: without ${key}`);
        assert.ok(
          !schema.safeParse({ ...sample, [key]: { nested: true } }).success,
          `${type}: ${key} an object`,
        );
      }
    }
  });
});

describe('recordEvent checks the data against its type’s schema', () => {
  let t: TestApp;
  let s: SchoolFixture;
  before(async () => {
    t = await createTestApp();
    s = await schoolFixture(t);
  });
  after(() => t.close());

  const countOf = async (type: EventType) =>
    (
      await t.runtime.db
        .selectFrom('domain_events')
        .select('id')
        .where('school_id', '=', s.schoolId)
        .where('type', '=', type)
        .execute()
    ).length;

  /** Records in a transaction of its own, so a refusal rolls back like a real change's would. */
  const record = (type: EventType, data: Record<string, unknown>) =>
    t.runtime.db.transaction().execute((tx) => recordEvent(tx, s.schoolId, type, data as never));

  it('refuses a missing, an extra or a mistyped field, naming the type and the field, and writes nothing', async () => {
    const good = { course_id: 'crs_1', slug: 'ink', status: 'published' };
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ course_id: 'crs_1', slug: 'ink' }, /^course\.published data does not match its schema: status: /],
      [{ ...good, title: 'Ink' }, /Unrecognized key: "title"/],
      [{ ...good, status: 1 }, /status: .*string/],
    ];
    for (const [data, message] of cases) {
      await assert.rejects(record('course.published', data), (err: Error) => {
        assert.ok(err instanceof EventDataError);
        assert.match(err.message, message);
        return true;
      });
    }
    assert.equal(await countOf('course.published'), 0, 'a refused event is never written');
    await record('course.published', good);
    assert.equal(await countOf('course.published'), 1);
  });

  it('stores the data as given, and leaves the caller’s lists unfrozen', async () => {
    const roles = ['student'];
    const data = { member_id: 'mem_1', user_id: 'usr_1', roles, invited_by_user_id: null };
    await record('member.joined', data);
    assert.ok(!Object.isFrozen(roles));
    const row = await t.runtime.db
      .selectFrom('domain_events')
      .select('data')
      .where('school_id', '=', s.schoolId)
      .where('type', '=', 'member.joined')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(row.data), data);
  });
});
