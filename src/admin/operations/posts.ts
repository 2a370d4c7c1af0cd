import { z } from 'zod';
import {
  createPost,
  deletePost,
  getPost,
  listPosts,
  POST_STATUSES,
  type Post,
  PostCreate,
  PostPatch,
  updatePost,
} from '../../domain/community/posts.ts';
import { mapPage } from '../../domain/kernel/pagination.ts';
import { defineOperation } from '../define-operation.ts';
import {
  bodyOf,
  Id,
  named,
  PageQuery,
  pageOf,
  SearchQuery,
  Timestamp,
  toCamel,
  toSnake,
} from '../schemas.ts';

const PostSchema = named(
  'Post',
  z.object({
    id: Id,
    author_user_id: Id.nullable(),
    title: z.string(),
    slug: z.string(),
    body: z.string().describe('Markdown.'),
    status: z.enum(POST_STATUSES),
    published_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  'A community or blog post.',
);
const present = (p: Post) => toSnake(p);

const ById = z.strictObject({ post_id: Id });
const example = {
  id: 'pst_01jf3k6m2v8w9x0y1z2a3b4c5d',
  author_user_id: 'usr_01jf3k6m2v8w9x0y1z2a3b4c5d',
  title: 'Welcome to the spring cohort',
  slug: 'welcome-spring',
  body: 'Hello everyone…',
  status: 'published',
  published_at: '2026-03-01T09:00:00.000Z',
  created_at: '2026-03-01T09:00:00.000Z',
  updated_at: '2026-03-01T09:00:00.000Z',
};

const get = defineOperation({
  name: 'posts.get',
  summary: 'Get a post',
  scope: 'posts:read',
  method: 'GET',
  path: '/api/v1/posts/{post_id}',
  input: { params: ById },
  output: PostSchema,
  etag: true,
  examples: { response: example },
  handler: async (ctx, { params }) => present(await getPost(ctx.db, ctx.schoolId, params.post_id)),
});

/** The post operations. */
export const postOperations = [
  defineOperation({
    name: 'posts.list',
    summary: 'List posts',
    description: 'Posts oldest first; filter by `status`, `author_user_id` or a `search` on the title.',
    scope: 'posts:read',
    method: 'GET',
    path: '/api/v1/posts',
    input: {
      query: z.strictObject({
        ...PageQuery,
        status: z.enum(POST_STATUSES).optional(),
        author_user_id: Id.optional(),
        search: SearchQuery,
      }),
    },
    output: pageOf(PostSchema),
    handler: async (ctx, { query }) => {
      const page = await listPosts(
        ctx.db,
        ctx.schoolId,
        { status: query.status, authorUserId: query.author_user_id, search: query.search },
        query,
      );
      return mapPage(page, present);
    },
  }),
  get,
  defineOperation({
    name: 'posts.create',
    summary: 'Create a post',
    description:
      'Without a `slug` one is made from the title, unique in the school (`-2`, `-3` … when taken); a given slug must be free (409 `slug_taken`). Publishing stamps `published_at`.',
    scope: 'posts:write',
    method: 'POST',
    path: '/api/v1/posts',
    input: {
      body: bodyOf(PostCreate),
    },
    output: PostSchema,
    status: 201,
    etag: true,
    examples: {
      request: {
        title: 'Welcome to the spring cohort',
        slug: 'welcome-spring',
        body: 'Hello everyone…',
        status: 'published',
      },
      response: example,
    },
    handler: async (ctx, { body }) =>
      present(
        await createPost(ctx.db, ctx.schoolId, {
          ...toCamel(body),
          authorUserId: body.author_user_id === undefined ? ctx.principal.userId : body.author_user_id,
        }),
      ),
  }),
  defineOperation({
    name: 'posts.update',
    summary: 'Update a post',
    scope: 'posts:write',
    method: 'PATCH',
    path: '/api/v1/posts/{post_id}',
    input: { params: ById, body: bodyOf(PostPatch) },
    output: PostSchema,
    etag: true,
    current: get.handler,
    examples: { request: { status: 'draft' } },
    handler: async (ctx, { params, body }) =>
      present(await updatePost(ctx.db, ctx.schoolId, params.post_id, toCamel(body))),
  }),
  defineOperation({
    name: 'posts.delete',
    summary: 'Delete a post',
    description: 'Its comments go with it.',
    scope: 'posts:write',
    method: 'DELETE',
    path: '/api/v1/posts/{post_id}',
    input: { params: ById },
    handler: async (ctx, { params }) => deletePost(ctx.db, ctx.schoolId, params.post_id),
  }),
];
