import { sql } from 'kysely';
import { newId } from '../../crypto/ids.ts';
import { problems } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { Checks, deleteOwned, isUniqueViolation, slugTaken, withTransaction } from '../kernel/checks.ts';
import { mapPage, type Page, type PageParams, paginate } from '../kernel/pagination.ts';
import type { PostsTable } from '../kernel/tables.ts';

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

export interface PostInput {
  title: string;
  slug: string;
  body?: string;
  status?: Post['status'];
  authorUserId?: string | null;
}

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

/** Creates a post; slugs are unique per school (409 `slug_taken`). */
export async function createPost(db: Db | Tx, schoolId: string, input: PostInput): Promise<Post> {
  const c = new Checks();
  const now = isoNow();
  const status = input.status === undefined ? 'draft' : c.oneOf('status', input.status, POST_STATUSES);
  const row: PostsTable = {
    id: newId('pst'),
    school_id: schoolId,
    author_user_id: input.authorUserId ?? null,
    title: c.text('title', input.title),
    slug: c.slug('slug', input.slug),
    body: c.optionalText('body', input.body, 200_000) ?? '',
    status,
    published_at: status === 'published' ? now : null,
    created_at: now,
    updated_at: now,
  };
  c.done();
  return withTransaction(db, async (tx) => {
    if (row.author_user_id) await checkAuthor(tx, schoolId, row.author_user_id);
    const dup = await tx
      .selectFrom('posts')
      .select('id')
      .where('school_id', '=', schoolId)
      .where('slug', '=', row.slug)
      .executeTakeFirst();
    if (dup) throw slugTaken('post', row.slug);
    try {
      await tx.insertInto('posts').values(row).execute();
    } catch (err) {
      if (isUniqueViolation(err)) throw slugTaken('post', row.slug);
      throw err;
    }
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
  patch: Partial<PostInput>,
): Promise<Post> {
  const c = new Checks();
  const set: Partial<PostsTable> = {};
  if (patch.title !== undefined) set.title = c.text('title', patch.title);
  if (patch.slug !== undefined) set.slug = c.slug('slug', patch.slug);
  if (patch.body !== undefined) set.body = c.optionalText('body', patch.body, 200_000) ?? '';
  if (patch.status !== undefined) set.status = c.oneOf('status', patch.status, POST_STATUSES);
  if (patch.authorUserId !== undefined) set.author_user_id = patch.authorUserId;
  c.done();
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
