import { sql } from 'kysely';
import { z } from 'zod';
import { newId } from '../../crypto/ids.ts';
import { problems } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import {
  deleteOwned,
  flag,
  isUniqueViolation,
  parseValid,
  slugTaken,
  withTransaction,
} from '../kernel/checks.ts';
import type { PagesTable } from '../kernel/community-tables.ts';
import { Slug, Text, worded } from '../kernel/fields.ts';
import { mapPage, type Page, type PageParams, paginate } from '../kernel/pagination.ts';
import { insertUnderSlug, SlugOnCreate } from '../kernel/slugs.ts';
import { likePattern } from './posts.ts';

/** One content block of a page; surfaces validate the block shapes (admin/operations/pages.ts). */
type Block = { type: string } & Record<string, unknown>;

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

/**
 * A page's fields as a client writes them: each rule once (the admin API derives its bodies).
 * The domain keeps any block with a type (pages seeded or imported before the block set was
 * fixed hold other shapes); the API writes only its structured blocks (its `PageBlock`).
 */
const SitePageFields = z.object({
  title: Text(200),
  slug: Slug,
  blocks: worded(
    z.array(z.looseObject({ type: z.string() })).max(200),
    'must be an array of at most 200 blocks, each with a type',
  ),
  published: z.boolean(),
});

/** A new page: its title; unpublished, empty and with a slug from its title unless said otherwise. */
export const SitePageCreate = SitePageFields.extend({ slug: SlugOnCreate }).partial({
  blocks: true,
  published: true,
});
export type SitePageInput = z.input<typeof SitePageCreate>;

/** A change to a page: any of its fields. */
export const SitePagePatch = SitePageFields.partial();

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

// The stored size is a rule over the whole list as text, so it is checked on the text.
/**
 * The courses and files a page's blocks name must be this school's (a course list's courses, a
 * hero's or an image's file), as a coupon's products or a plan's courses must: another school's
 * id is refused like an unknown one, naming the block and the place in it.
 */
async function checkBlockReferences(tx: Db | Tx, schoolId: string, blocks: readonly Block[]): Promise<void> {
  const ids = (value: unknown): string[] =>
    Array.isArray(value)
      ? value.filter((v): v is string => typeof v === 'string')
      : typeof value === 'string'
        ? [value]
        : [];
  const courses = new Set(blocks.flatMap((b) => (b.type === 'course_list' ? ids(b.course_ids) : [])));
  const files = new Set(blocks.flatMap((b) => [...ids(b.file_id), ...ids(b.image_file_id)]));
  const known = async (table: 'courses' | 'stored_files', wanted: Set<string>) =>
    wanted.size === 0
      ? new Set<string>()
      : new Set(
          (
            await tx
              .selectFrom(table)
              .select('id')
              .where('school_id', '=', schoolId)
              .where('id', 'in', [...wanted])
              .execute()
          ).map((r) => r.id),
        );
  const [knownCourses, knownFiles] = await Promise.all([
    known('courses', courses),
    known('stored_files', files),
  ]);
  const errors: { field: string; message: string }[] = [];
  blocks.forEach((b, i) => {
    if (b.type === 'course_list') {
      ids(b.course_ids).forEach((id, j) => {
        if (!knownCourses.has(id))
          errors.push({ field: `blocks.${i}.course_ids.${j}`, message: 'names no course of this school' });
      });
    }
    for (const key of ['file_id', 'image_file_id']) {
      if (ids(b[key]).some((id) => !knownFiles.has(id))) {
        errors.push({ field: `blocks.${i}.${key}`, message: 'names no file of this school' });
      }
    }
  });
  if (errors.length > 0) throw problems.validation(errors);
}

function blocksText(blocks: readonly Block[]): string {
  const json = JSON.stringify(blocks);
  if (json.length > 500_000)
    throw problems.validation([{ field: 'blocks', message: 'are too large (500 kB at most)' }]);
  return json;
}

/**
 * Creates a page. Without a slug it gets one from its title, unique in the school; a slug the
 * client gives must be free (409 `slug_taken`).
 */
export async function createSitePage(db: Db | Tx, schoolId: string, input: SitePageInput): Promise<SitePage> {
  const v = parseValid(SitePageCreate, input);
  const now = isoNow();
  const row: PagesTable = {
    id: newId('pag'),
    school_id: schoolId,
    slug: v.slug ?? '',
    title: v.title,
    blocks: blocksText(v.blocks ?? []),
    published: v.published ? 1 : 0,
    created_at: now,
    updated_at: now,
  };
  return withTransaction(db, async (tx) => {
    await checkBlockReferences(tx, schoolId, v.blocks ?? []);
    const place = { table: 'pages', schoolId, noun: 'page', explicit: v.slug, title: v.title } as const;
    row.slug = await insertUnderSlug(tx, place, async (slug) => {
      const result = await tx
        .insertInto('pages')
        .values({ ...row, slug })
        .onConflict((oc) => oc.columns(['school_id', 'slug']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
    });
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
  input: z.input<typeof SitePagePatch>,
): Promise<SitePage> {
  const patch = parseValid(SitePagePatch, input);
  const set: Partial<PagesTable> = {
    slug: patch.slug,
    title: patch.title,
    blocks: patch.blocks && blocksText(patch.blocks),
    published: patch.published === undefined ? undefined : patch.published ? 1 : 0,
  };
  return withTransaction(db, async (tx) => {
    const current = await getSitePage(tx, schoolId, id);
    if (patch.blocks) await checkBlockReferences(tx, schoolId, patch.blocks);
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
