import { sql } from 'kysely';
import { z } from 'zod';
import { newId } from '../../crypto/ids.ts';
import { problems } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { columnsOf } from '../kernel/case.ts';
import { deleteOwned, isUniqueViolation, parseValid, slugTaken, withTransaction } from '../kernel/checks.ts';
import type { PostsTable } from '../kernel/community-tables.ts';
import { declare } from '../kernel/field-meta.ts';
import { Id, Slug, Text } from '../kernel/fields.ts';
import { mapPage, type Page, type PageParams, paginate } from '../kernel/pagination.ts';
import { insertUnderSlug, SlugOnCreate } from '../kernel/slugs.ts';

export const POST_STATUSES = ['draft', 'published'] as const;

/** A community or blog post. */
export interface Post {
  id: string;
  schoolId: string;
  authorUserId: string | null;
  title: string;
  slug: string;
  body: string;
  status: (typeof POST_STATUSES)[number];
  publishedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A post's fields as a client writes them: each rule once (the admin API derives its bodies). */
const PostFields = z.object({
  title: Text(200),
  slug: Slug,
  body: declare(z.string().max(200_000), { kind: 'long_text' }),
  status: z.enum(POST_STATUSES),
  authorUserId: Id.nullable().describe('A member of the school; defaults to the caller on create.'),
});

/** A new post: its title; a draft with an empty body and a slug from its title unless said otherwise. */
export const PostCreate = PostFields.extend({ slug: SlugOnCreate }).partial({
  body: true,
  status: true,
  authorUserId: true,
});
export type PostInput = z.input<typeof PostCreate>;

/** A change to a post: any of its fields. */
export const PostPatch = PostFields.partial();

export interface PostFilter {
  status?: Post['status'];
  authorUserId?: string;
  search?: string;
}

function toPost(r: PostsTable): Post {
  return {
    id: r.id,
    schoolId: r.school_id,
    authorUserId: r.author_user_id,
    title: r.title,
    slug: r.slug,
    body: r.body,
    status: r.status,
    publishedAt: r.published_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Escapes a user string for a LIKE pattern with `escape '\'`. */
export function likePattern(text: string): string {
  return `%${text
    .trim()
    .toLowerCase()
    .replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
}

async function checkAuthor(db: Db | Tx, schoolId: string, userId: string): Promise<void> {
  const m = await db
    .selectFrom('memberships')
    .select('id')
    .where('school_id', '=', schoolId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!m) throw problems.validation([{ field: 'authorUserId', message: 'must be a member of this school' }]);
}

/**
 * Creates a post. Without a slug it gets one from its title, unique in the school; a slug the
 * client gives must be free (409 `slug_taken`).
 */
export async function createPost(db: Db | Tx, schoolId: string, input: PostInput): Promise<Post> {
  const v = parseValid(PostCreate, input);
  const now = isoNow();
  const status = v.status ?? 'draft';
  const row: PostsTable = {
    id: newId('pst'),
    school_id: schoolId,
    author_user_id: v.authorUserId ?? null,
    title: v.title,
    slug: v.slug ?? '',
    body: v.body ?? '',
    status,
    published_at: status === 'published' ? now : null,
    created_at: now,
    updated_at: now,
  };
  return withTransaction(db, async (tx) => {
    if (row.author_user_id) await checkAuthor(tx, schoolId, row.author_user_id);
    const place = { table: 'posts', schoolId, noun: 'post', explicit: v.slug, title: v.title } as const;
    row.slug = await insertUnderSlug(tx, place, async (slug) => {
      const result = await tx
        .insertInto('posts')
        .values({ ...row, slug })
        .onConflict((oc) => oc.columns(['school_id', 'slug']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
    });
    return toPost(row);
  });
}

/** A post of the school; 404 otherwise. */
export async function getPost(db: Db | Tx, schoolId: string, id: string): Promise<Post> {
  const row = await db
    .selectFrom('posts')
    .selectAll()
    .where('school_id', '=', schoolId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw problems.notFound('No such post.');
  return toPost(row);
}

/** Posts of the school, oldest first, by status, author or title search. */
export async function listPosts(
  db: Db | Tx,
  schoolId: string,
  filter: PostFilter = {},
  page: PageParams = {},
): Promise<Page<Post>> {
  let q = db.selectFrom('posts').selectAll('posts').where('posts.school_id', '=', schoolId);
  if (filter.status) q = q.where('posts.status', '=', filter.status);
  if (filter.authorUserId) q = q.where('posts.author_user_id', '=', filter.authorUserId);
  if (filter.search)
    q = q.where(sql`lower(posts.title)`, 'like', sql`${likePattern(filter.search)} escape '\\'`);
  return mapPage(await paginate(q, page, { table: 'posts' }), toPost);
}

/** Changes a post; publishing stamps `publishedAt`, unpublishing clears it. */
export async function updatePost(
  db: Db | Tx,
  schoolId: string,
  id: string,
  input: z.input<typeof PostPatch>,
): Promise<Post> {
  const patch = parseValid(PostPatch, input);
  const set: Partial<PostsTable> = columnsOf(patch);
  return withTransaction(db, async (tx) => {
    const current = await getPost(tx, schoolId, id);
    if (set.author_user_id) await checkAuthor(tx, schoolId, set.author_user_id);
    if (set.slug && set.slug !== current.slug) {
      const dup = await tx
        .selectFrom('posts')
        .select('id')
        .where('school_id', '=', schoolId)
        .where('slug', '=', set.slug)
        .executeTakeFirst();
      if (dup) throw slugTaken('post', set.slug);
    }
    if (set.status === 'published' && !current.publishedAt) set.published_at = isoNow();
    if (set.status === 'draft') set.published_at = null;
    try {
      await tx
        .updateTable('posts')
        .set({ ...set, updated_at: isoNow() })
        .where('id', '=', id)
        .execute();
    } catch (err) {
      if (isUniqueViolation(err) && set.slug) throw slugTaken('post', set.slug);
      throw err;
    }
    return getPost(tx, schoolId, id);
  });
}

/** Deletes a post and its comments. */
export async function deletePost(db: Db | Tx, schoolId: string, id: string): Promise<void> {
  await withTransaction(db, async (tx) => {
    await deleteOwned(tx, 'posts', schoolId, id, 'post');
    await tx
      .deleteFrom('comments')
      .where('school_id', '=', schoolId)
      .where('target_type', '=', 'post')
      .where('target_id', '=', id)
      .execute();
  });
}
