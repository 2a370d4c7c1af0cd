import { sql } from 'kysely';
import { newId } from '../../crypto/ids.ts';
import { problems } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import {
  Checks,
  deleteOwned,
  flag,
  isUniqueViolation,
  slugTaken,
  withTransaction,
} from '../kernel/checks.ts';
import { mapPage, type Page, type PageParams, paginate } from '../kernel/pagination.ts';
import type { PagesTable } from '../kernel/tables.ts';
import { likePattern } from './posts.ts';

/** One content block of a page; surfaces validate the block shapes (admin/operations/pages.ts). */
export type Block = { type: string } & Record<string, unknown>;

/** A site page built from blocks. */
export interface SitePage {
  id: string;
  schoolId: string;
  slug: string;
  title: string;
  blocks: Block[];
  published: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface SitePageInput {
  slug: string;
  title: string;
  blocks?: Block[];
  published?: boolean;
}

function toPage(r: PagesTable): SitePage {
  return {
    id: r.id,
    schoolId: r.school_id,
    slug: r.slug,
    title: r.title,
    blocks: JSON.parse(r.blocks) as Block[],
    published: flag(r.published),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function checkBlocks(c: Checks, blocks: unknown): string {
  if (
    !Array.isArray(blocks) ||
    blocks.length > 200 ||
    blocks.some((b) => !b || typeof b !== 'object' || typeof b.type !== 'string')
  ) {
    c.fail('blocks', 'must be an array of at most 200 blocks, each with a type');
    return '[]';
  }
  const json = JSON.stringify(blocks);
  if (json.length > 500_000) c.fail('blocks', 'are too large (500 kB at most)');
  return json;
}

/** Creates a page; slugs are unique per school (409 `slug_taken`). */
export async function createSitePage(db: Db | Tx, schoolId: string, input: SitePageInput): Promise<SitePage> {
  const c = new Checks();
  const now = isoNow();
  const row: PagesTable = {
    id: newId('pag'),
    school_id: schoolId,
    slug: c.slug('slug', input.slug),
    title: c.text('title', input.title),
    blocks: checkBlocks(c, input.blocks ?? []),
    published: input.published ? 1 : 0,
    created_at: now,
    updated_at: now,
  };
  c.done();
  return withTransaction(db, async (tx) => {
    const dup = await tx
      .selectFrom('pages')
      .select('id')
      .where('school_id', '=', schoolId)
      .where('slug', '=', row.slug)
      .executeTakeFirst();
    if (dup) throw slugTaken('page', row.slug);
    try {
      await tx.insertInto('pages').values(row).execute();
    } catch (err) {
      if (isUniqueViolation(err)) throw slugTaken('page', row.slug);
      throw err;
    }
    return toPage(row);
  });
}

/** A page of the school; 404 otherwise. */
export async function getSitePage(db: Db | Tx, schoolId: string, id: string): Promise<SitePage> {
  const row = await db
    .selectFrom('pages')
    .selectAll()
    .where('school_id', '=', schoolId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw problems.notFound('No such page.');
  return toPage(row);
}

/** Pages of the school, oldest first, by published flag or title search. */
export async function listSitePages(
  db: Db | Tx,
  schoolId: string,
  filter: { published?: boolean; search?: string } = {},
  page: PageParams = {},
): Promise<Page<SitePage>> {
  let q = db.selectFrom('pages').selectAll('pages').where('pages.school_id', '=', schoolId);
  if (filter.published !== undefined) q = q.where('pages.published', '=', filter.published ? 1 : 0);
  if (filter.search)
    q = q.where(sql`lower(pages.title)`, 'like', sql`${likePattern(filter.search)} escape '\\'`);
  return mapPage(await paginate(q, page, { table: 'pages' }), toPage);
}

/** Changes a page; `blocks` replaces the whole list. */
export async function updateSitePage(
  db: Db | Tx,
  schoolId: string,
  id: string,
  patch: Partial<SitePageInput>,
): Promise<SitePage> {
  const c = new Checks();
  const set: Partial<PagesTable> = {};
  if (patch.slug !== undefined) set.slug = c.slug('slug', patch.slug);
  if (patch.title !== undefined) set.title = c.text('title', patch.title);
  if (patch.blocks !== undefined) set.blocks = checkBlocks(c, patch.blocks);
  if (patch.published !== undefined) set.published = patch.published ? 1 : 0;
  c.done();
  return withTransaction(db, async (tx) => {
    const current = await getSitePage(tx, schoolId, id);
    if (set.slug && set.slug !== current.slug) {
      const dup = await tx
        .selectFrom('pages')
        .select('id')
        .where('school_id', '=', schoolId)
        .where('slug', '=', set.slug)
        .executeTakeFirst();
      if (dup) throw slugTaken('page', set.slug);
    }
    try {
      await tx
        .updateTable('pages')
        .set({ ...set, updated_at: isoNow() })
        .where('id', '=', id)
        .execute();
    } catch (err) {
      if (isUniqueViolation(err) && set.slug) throw slugTaken('page', set.slug);
      throw err;
    }
    return getSitePage(tx, schoolId, id);
  });
}

/** Deletes a page. */
export async function deleteSitePage(db: Db | Tx, schoolId: string, id: string): Promise<void> {
  await deleteOwned(db, 'pages', schoolId, id, 'page');
}
