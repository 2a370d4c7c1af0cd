import { type Kysely, PostgresAdapter, sql } from 'kysely';
import { type PatternTerms, patternsOf } from '../events/catalogue.ts';

/**
 * The fan-out: the deliveries an event gets, written by the webhooks feature, which owns their
 * table (a test event's one delivery: deliveries.ts). Imported by the migration that creates it,
 * so it imports nothing of the store.
 *
 * A deliverable event (the outbox marks its row `fan_out`) gets one delivery per enabled endpoint
 * of its school subscribed to its type, from a trigger on `domain_events`: in the insert's own
 * statement, so recording an event stays one statement (its cost is a budget, docs/performance.md)
 * and the deliveries commit or roll back with the change. The trigger's match is generated from
 * the catalogue's one subscription rule (`patternsOf`, events/catalogue.ts), which patternsMatch
 * evaluates in TypeScript: `event_types` is a JSON array of strings, so a pattern is subscribed
 * when `"<pattern>"` occurs in it. A delivery's id is `whd_` + the event's and the endpoint's
 * ULIDs: time first, like every id. Changing the rule or this SQL needs a migration that calls
 * createFanOut again.
 */

/** Text as SQL: constant pieces and SQL expressions, concatenated with `||`. */
type Term = readonly ({ readonly text: string } | { readonly sql: string })[];

function sqlTerms(locate: 'instr' | 'strpos'): PatternTerms<Term> {
  return {
    literal: (text) => [{ text }],
    groupOf: (type) => [{ sql: `substr(${render(type)}, 1, ${locate}(${render(type)}, '.'))` }],
    concat: (left, right) => {
      const last = left.at(-1);
      const first = right[0];
      // Adjacent constants fold into one: the generated SQL reads as a person would write it.
      if (last && first && 'text' in last && 'text' in first) {
        return [...left.slice(0, -1), { text: last.text + first.text }, ...right.slice(1)];
      }
      return [...left, ...right];
    },
  };
}

function render(term: Term): string {
  return term.map((p) => ('text' in p ? `'${p.text.replaceAll("'", "''")}'` : p.sql)).join(' || ');
}

/** The trigger's condition on endpoint `e` for the new event row: the subscription rule in SQL. */
export function subscribedSql(engine: 'sqlite' | 'postgres'): string {
  const locate = engine === 'sqlite' ? 'instr' : 'strpos';
  const terms = sqlTerms(locate);
  const quoted = (pattern: Term) =>
    terms.concat(terms.literal('"'), terms.concat(pattern, terms.literal('"')));
  return patternsOf<Term>([{ sql: 'new.type' }], terms)
    .map((pattern) => `${locate}(e.event_types, ${render(quoted(pattern))}) > 0`)
    .join(' or ');
}

function fanOutInsert(engine: 'sqlite' | 'postgres'): string {
  return `insert into webhook_deliveries
        (id, school_id, endpoint_id, event_id, status, attempts, next_attempt_at, created_at, updated_at)
      select 'whd_' || substr(new.id, 5) || substr(e.id, 5), new.school_id, e.id, new.id, 'pending', 0,
             new.occurred_at, new.occurred_at, new.occurred_at
        from webhook_endpoints e
       where e.school_id = new.school_id and e.enabled = 1
         and (${subscribedSql(engine)});`;
}

/** Creates (or replaces) the fan-out trigger on `domain_events`. */
export async function createFanOut(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`drop trigger if exists domain_events_fan_out on domain_events`.execute(db);
    await sql
      .raw(`create or replace function domain_events_fan_out() returns trigger language plpgsql as $$
    begin
      ${fanOutInsert('postgres')}
      return null;
    end $$`)
      .execute(db);
    await sql`create trigger domain_events_fan_out after insert on domain_events
      for each row when (new.fan_out = 1) execute function domain_events_fan_out()`.execute(db);
  } else {
    await sql`drop trigger if exists domain_events_fan_out`.execute(db);
    await sql
      .raw(`create trigger domain_events_fan_out after insert on domain_events
    for each row when new.fan_out = 1
    begin
      ${fanOutInsert('sqlite')}
    end`)
      .execute(db);
  }
}
