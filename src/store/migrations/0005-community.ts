import type { Kysely } from 'kysely';
import { schoolTable, timestamps } from './columns.ts';

/** Events and registrations, posts, comments, pages, forms and submissions, idempotency keys. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await timestamps(
    schoolTable(db, 'events')
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('starts_at', 'text', (c) => c.notNull())
      .addColumn('ends_at', 'text', (c) => c.notNull())
      .addColumn('capacity', 'integer')
      .addColumn('online_url', 'text')
      .addColumn('location', 'text')
      .addColumn('visibility', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull()),
  ).execute();
  await db.schema
    .createIndex('events_school_starts')
    .on('events')
    .columns(['school_id', 'starts_at'])
    .execute();

  await db.schema
    .createTable('event_registrations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('school_id', 'text', (c) => c.notNull().references('schools.id').onDelete('cascade'))
    .addColumn('event_id', 'text', (c) => c.notNull().references('events.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('registered_at', 'text', (c) => c.notNull())
    .addColumn('canceled_at', 'text')
    .addUniqueConstraint('event_registrations_event_user', ['event_id', 'user_id'])
    .execute();
  await db.schema
    .createIndex('event_registrations_user')
    .on('event_registrations')
    .columns(['school_id', 'user_id', 'id'])
    .execute();

  await timestamps(
    schoolTable(db, 'posts')
      .addColumn('author_user_id', 'text', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('slug', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('published_at', 'text'),
  )
    .addUniqueConstraint('posts_school_slug', ['school_id', 'slug'])
    .execute();

  await db.schema
    .createTable('comments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('school_id', 'text', (c) => c.notNull().references('schools.id').onDelete('cascade'))
    .addColumn('author_user_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('comments_target')
    .on('comments')
    .columns(['school_id', 'target_type', 'target_id'])
    .execute();

  await timestamps(
    schoolTable(db, 'pages')
      .addColumn('slug', 'text', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('blocks', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('published', 'integer', (c) => c.notNull().defaultTo(0)),
  )
    .addUniqueConstraint('pages_school_slug', ['school_id', 'slug'])
    .execute();

  await timestamps(
    schoolTable(db, 'forms')
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('fields', 'text', (c) => c.notNull().defaultTo('[]')),
  ).execute();

  await db.schema
    .createTable('form_submissions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('school_id', 'text', (c) => c.notNull().references('schools.id').onDelete('cascade'))
    .addColumn('form_id', 'text', (c) => c.notNull().references('forms.id').onDelete('cascade'))
    .addColumn('email', 'text')
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('submitted_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('form_submissions_form')
    .on('form_submissions')
    .columns(['form_id', 'id'])
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('school_id', 'text', (c) => c.notNull().references('schools.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer', (c) => c.notNull())
    .addColumn('response_body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['school_id', 'client_id', 'key'])
    .execute();
}
