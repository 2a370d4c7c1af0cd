import type { CreateTableBuilder, Kysely } from 'kysely';

/** Starts a school-owned table: text id primary key and a cascading school_id. */
export function schoolTable(db: Kysely<unknown>, name: string): CreateTableBuilder<string, string> {
  return db.schema
    .createTable(name)
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('school_id', 'text', (c) => c.notNull().references('schools.id').onDelete('cascade'));
}

/** Adds created_at and updated_at. */
export function timestamps(t: CreateTableBuilder<string, string>): CreateTableBuilder<string, string> {
  return t
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull());
}
