import type { Db } from '../../store/database.ts';
import type { FileStore, ListedObject } from './file-store.ts';

/**
 * How old an object no row names must be before the sweep touches it: far longer than any upload
 * takes between staging its bytes and committing its row, so work in flight is never swept.
 */
export const ORPHAN_GRACE_MS = 60 * 60_000;

/** How many keys one query looks up. */
const BATCH = 500;

async function namedKeys(db: Db, keys: string[]): Promise<Set<string>> {
  const named = new Set<string>();
  for (let i = 0; i < keys.length; i += BATCH) {
    const rows = await db
      .selectFrom('stored_files')
      .select('storage_key')
      .where('storage_key', 'in', keys.slice(i, i + BATCH))
      .execute();
    for (const r of rows) named.add(r.storage_key);
  }
  return named;
}

/**
 * Sweeps the file store of objects no row names, older than the grace period: a staged upload a
 * crash interrupted, an upload whose transaction rolled back, the bytes of a deleted school. A
 * staged object whose row did commit (the process died between the commit and the move) is
 * moved into place instead, so the file it names is whole again.
 */
export async function sweepOrphanFiles(
  db: Db,
  files: FileStore,
  now: number,
): Promise<{ removed: number; recovered: number }> {
  const cutoff = now - ORPHAN_GRACE_MS;
  const old: ListedObject[] = [];
  for await (const object of files.list()) if (object.modifiedMs < cutoff) old.push(object);
  const named = await namedKeys(db, [...new Set(old.map((o) => o.key))]);
  let removed = 0;
  let recovered = 0;
  for (const object of old) {
    if (!object.staged) {
      if (named.has(object.key)) continue;
      await files.delete(object.key);
      removed++;
    } else if (named.has(object.key) && !(await files.stat(object.key))) {
      await files.commit(object.key);
      recovered++;
    } else {
      await files.discard(object.key);
      removed++;
    }
  }
  return { removed, recovered };
}
