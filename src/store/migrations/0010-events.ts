import { type Kysely, PostgresAdapter, sql } from 'kysely';
import { schoolTable } from './columns.ts';

/**
 * The domain event outbox and the webhook tables fed from it. An event row is written
 * in the transaction of the change it records, and so are the delivery rows it fans out to, so
 * an event (and its deliveries) exist exactly when the change committed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Every write of the product now adds an event row, so the table carries as few b-trees as the
  // reads allow (the outbox's cost is a budget: docs/performance.md). Its key is (school_id, id):
  // the audit trail pages one school's events by id, and every lookup knows the school. On SQLite
  // the table is clustered by that key (WITHOUT ROWID) and has no other b-tree: a type filter
  // walks the school's events. PostgreSQL, where several instances write, also indexes the type.
  const sqlite = !(db.getExecutor().adapter instanceof PostgresAdapter);
  await db.schema
    .createTable('domain_events')
    .addColumn('school_id', 'text', (c) => c.notNull().references('schools.id').onDelete('cascade'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('actor_client_id', 'text')
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text')
    // 1 when the event goes to every subscribed endpoint (the fan-out trigger, created by migration
    // 0013 from webhooks/fan-out.ts); 0 for audit-only events, test events included.
    .addColumn('fan_out', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('domain_events_pkey', ['school_id', 'id'])
    .$call((t) => (sqlite ? t.modifyEnd(sql`without rowid`) : t))
    .execute();
  if (!sqlite) {
    await db.schema
      .createIndex('domain_events_school_type')
      .on('domain_events')
      .columns(['school_id', 'type', 'id'])
      .execute();
  }

  await schoolTable(db, 'webhook_endpoints')
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('event_types', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('disabled_reason', 'text')
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_expires_at', 'text')
    .addColumn('failing_since', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_endpoints_school')
    .on('webhook_endpoints')
    .columns(['school_id', 'enabled'])
    .execute();

  await schoolTable(db, 'webhook_deliveries')
    .addColumn('endpoint_id', 'text', (c) =>
      c.notNull().references('webhook_endpoints.id').onDelete('cascade'),
    )
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('last_status_code', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addForeignKeyConstraint(
      'webhook_deliveries_event',
      ['school_id', 'event_id'],
      'domain_events',
      ['school_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  // The worker's scan: due pending deliveries, oldest first.
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['status', 'next_attempt_at'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_endpoint')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'id'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_event')
    .on('webhook_deliveries')
    .column('event_id')
    .execute();

  await schoolTable(db, 'webhook_attempts')
    .addColumn('delivery_id', 'text', (c) =>
      c.notNull().references('webhook_deliveries.id').onDelete('cascade'),
    )
    .addColumn('endpoint_id', 'text', (c) =>
      c.notNull().references('webhook_endpoints.id').onDelete('cascade'),
    )
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('attempted_at', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('latency_ms', 'integer', (c) => c.notNull())
    .addColumn('response_excerpt', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('error', 'text')
    .addColumn('next_retry_at', 'text')
    .execute();
  await db.schema
    .createIndex('webhook_attempts_endpoint')
    .on('webhook_attempts')
    .columns(['endpoint_id', 'id'])
    .execute();
  await db.schema
    .createIndex('webhook_attempts_delivery')
    .on('webhook_attempts')
    .column('delivery_id')
    .execute();

  await db.schema
    .createTable('event_sweeps')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('swept_until', 'text', (c) => c.notNull())
    .execute();
}
