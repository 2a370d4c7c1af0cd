import type { Kysely } from 'kysely';

/**
 * `stored_files.uploaded_by`: the person who uploaded a file (null for files stored before this,
 * or whose uploader's account is gone). A lecturer may put on a lecture only the files they
 * uploaded or that are already on a lecture of a course they teach (catalog/curriculum.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('stored_files')
    .addColumn('uploaded_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .execute();
}
