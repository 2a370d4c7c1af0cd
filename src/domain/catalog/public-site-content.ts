/**
 * What a school's site shows besides its courses, as visitors may read it: published pages and
 * posts, its forms (never their submissions) and the footer's links. Drafts and another school's
 * things are not found.
 */
import { problems } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import { type Form, getForm } from '../community/forms.ts';
import { getSitePage, type SitePage } from '../community/pages.ts';
import { listPosts, type Post } from '../community/posts.ts';
import type { PageParams } from '../kernel/pagination.ts';

/** A published page of the school by slug (the `home` page is the site's front page). */
export async function publicPage(db: Db | Tx, schoolId: string, slug: string): Promise<SitePage> {
  const found = await db
    .selectFrom('pages')
    .select('id')
    .where('school_id', '=', schoolId)
    .where('slug', '=', slug)
    .where('published', '=', 1)
    .executeTakeFirst();
  if (!found) throw problems.notFound('No such page.');
  return getSitePage(db, schoolId, found.id);
}

/** A published post as visitors read it. */
export type PublicPost = Pick<Post, 'slug' | 'title' | 'body' | 'publishedAt'>;

const toPublicPost = (p: Post): PublicPost => ({
  slug: p.slug,
  title: p.title,
  body: p.body,
  publishedAt: p.publishedAt,
});

/** Published posts of the school, oldest first, a page at a time. */
export async function publishedPosts(
  db: Db | Tx,
  schoolId: string,
  page: PageParams = {},
): Promise<{ posts: PublicPost[]; nextCursor: string | null }> {
  const found = await listPosts(db, schoolId, { status: 'published' }, page);
  return { posts: found.data.map(toPublicPost), nextCursor: found.next_cursor };
}

/** A published post by slug; drafts are not found. */
export async function publishedPost(db: Db | Tx, schoolId: string, slug: string): Promise<PublicPost> {
  const row = await db
    .selectFrom('posts')
    .select(['slug', 'title', 'body', 'published_at'])
    .where('school_id', '=', schoolId)
    .where('slug', '=', slug)
    .where('status', '=', 'published')
    .executeTakeFirst();
  if (!row) throw problems.notFound('No such post.');
  return { slug: row.slug, title: row.title, body: row.body, publishedAt: row.published_at };
}

/** A form visitors may fill in: its title and fields (never its submissions). */
export type PublicForm = Pick<Form, 'id' | 'title' | 'fields'>;

/** A form of the school by id; another school's form is not found. */
export async function publicForm(db: Db | Tx, schoolId: string, formId: string): Promise<PublicForm> {
  const form = await getForm(db, schoolId, formId);
  return { id: form.id, title: form.title, fields: form.fields };
}

/** What a school's site links in its footer: its published pages (but `home`) and its forms. */
export interface PublicSiteLinks {
  pages: Array<{ slug: string; title: string }>;
  forms: Array<{ id: string; title: string }>;
}

/** The school's published pages and forms by title, at most 20 of each. */
export async function publicSiteLinks(db: Db | Tx, schoolId: string): Promise<PublicSiteLinks> {
  const [pages, forms] = await Promise.all([
    db
      .selectFrom('pages')
      .select(['slug', 'title'])
      .where('school_id', '=', schoolId)
      .where('published', '=', 1)
      .where('slug', '!=', 'home')
      .orderBy('title')
      .limit(20)
      .execute(),
    db
      .selectFrom('forms')
      .select(['id', 'title'])
      .where('school_id', '=', schoolId)
      .orderBy('title')
      .limit(20)
      .execute(),
  ]);
  return { pages, forms };
}
