import { z } from 'zod';
import {
  createSitePage,
  deleteSitePage,
  getSitePage,
  listSitePages,
  type SitePage,
  SitePageCreate,
  SitePagePatch,
  updateSitePage,
} from '../../domain/community/pages.ts';
import { declare } from '../../domain/kernel/field-meta.ts';
import { mapPage } from '../../domain/kernel/pagination.ts';
import { defineOperation } from '../define-operation.ts';
import {
  bodyOf,
  HttpUrl,
  Id,
  named,
  PageQuery,
  pageOf,
  QueryBool,
  SearchQuery,
  Timestamp,
  toCamel,
  toSnake,
} from '../schemas.ts';

/** The content blocks a page is built from: structured, so no block can smuggle in HTML. */
const Block = named(
  'PageBlock',
  z.discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('hero'),
      heading: z.string().min(1).max(200),
      text: declare(z.string().max(1000), { kind: 'long_text' }).optional(),
      image_file_id: Id.nullable().optional(),
    }),
    z.strictObject({
      type: z.literal('heading'),
      text: declare(z.string().min(1).max(300), { kind: 'long_text' }),
      level: z.number().int().min(1).max(4).default(2),
    }),
    z.strictObject({
      type: z.literal('text'),
      markdown: declare(z.string().max(50_000), { kind: 'long_text' }),
    }),
    z.strictObject({
      type: z.literal('image'),
      file_id: Id.nullable().default(null),
      url: HttpUrl.nullable().default(null),
      alt: z.string().max(500),
    }),
    z.strictObject({ type: z.literal('video'), url: HttpUrl, title: z.string().max(300).optional() }),
    z.strictObject({ type: z.literal('button'), label: z.string().min(1).max(100), url: HttpUrl }),
    z.strictObject({ type: z.literal('course_list'), course_ids: z.array(Id).max(50) }),
  ]),
  'One content block: hero, heading, text (Markdown), image, video, button or course_list.',
);

// Writes must use the structured blocks; reads show what is stored, and pages seeded or imported
// before the block set was fixed may hold other shapes: those come back as they are.
const StoredBlock = z.union([
  Block,
  z
    .looseObject({ type: z.string() })
    .describe('A block in a shape this API no longer writes, returned as stored.'),
]);

const PageSchema = named(
  'Page',
  z.object({
    id: Id,
    slug: z.string(),
    title: z.string(),
    blocks: z.array(StoredBlock),
    published: z.boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  'A site page.',
);
const present = (p: SitePage) => toSnake(p);

const structured = { blocks: z.array(Block).max(200) };
const ById = z.strictObject({ page_id: Id });
const example = {
  id: 'pag_01jf3k6m2v8w9x0y1z2a3b4c5d',
  slug: 'about',
  title: 'About us',
  blocks: [
    { type: 'heading', text: 'Who we are', level: 2 },
    { type: 'text', markdown: 'We teach **practical** skills.' },
  ],
  published: true,
  created_at: '2026-03-01T09:00:00.000Z',
  updated_at: '2026-03-01T09:00:00.000Z',
};

const get = defineOperation({
  name: 'pages.get',
  summary: 'Get a page',
  scope: 'pages:read',
  method: 'GET',
  path: '/api/v1/pages/{page_id}',
  input: { params: ById },
  output: PageSchema,
  etag: true,
  examples: { response: example },
  handler: async (ctx, { params }) => present(await getSitePage(ctx.db, ctx.schoolId, params.page_id)),
});

/** The page operations. */
export const pageOperations = [
  defineOperation({
    name: 'pages.list',
    summary: 'List pages',
    description: 'Pages oldest first; filter by `published` or a `search` on the title.',
    scope: 'pages:read',
    method: 'GET',
    path: '/api/v1/pages',
    input: { query: z.strictObject({ ...PageQuery, published: QueryBool, search: SearchQuery }) },
    output: pageOf(PageSchema),
    handler: async (ctx, { query }) => {
      const page = await listSitePages(
        ctx.db,
        ctx.schoolId,
        { published: query.published, search: query.search },
        query,
      );
      return mapPage(page, present);
    },
  }),
  get,
  defineOperation({
    name: 'pages.create',
    summary: 'Create a page',
    description:
      'Without a `slug` one is made from the title, unique in the school (`-2`, `-3` … when taken); a given slug must be free (409 `slug_taken`).',
    scope: 'pages:write',
    method: 'POST',
    path: '/api/v1/pages',
    input: {
      body: bodyOf(SitePageCreate, structured),
    },
    output: PageSchema,
    status: 201,
    etag: true,
    examples: {
      request: { slug: 'about', title: 'About us', blocks: example.blocks, published: true },
      response: example,
    },
    handler: async (ctx, { body }) => present(await createSitePage(ctx.db, ctx.schoolId, toCamel(body))),
  }),
  defineOperation({
    name: 'pages.update',
    summary: 'Update a page',
    description: '`blocks` replaces the whole list.',
    scope: 'pages:write',
    method: 'PATCH',
    path: '/api/v1/pages/{page_id}',
    input: { params: ById, body: bodyOf(SitePagePatch, structured) },
    output: PageSchema,
    etag: true,
    current: get.handler,
    examples: { request: { published: false } },
    handler: async (ctx, { params, body }) =>
      present(await updateSitePage(ctx.db, ctx.schoolId, params.page_id, toCamel(body))),
  }),
  defineOperation({
    name: 'pages.delete',
    summary: 'Delete a page',
    scope: 'pages:write',
    method: 'DELETE',
    path: '/api/v1/pages/{page_id}',
    input: { params: ById },
    handler: async (ctx, { params }) => deleteSitePage(ctx.db, ctx.schoolId, params.page_id),
  }),
];
