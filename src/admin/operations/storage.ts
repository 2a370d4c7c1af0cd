import { z } from 'zod';
import { noteFileUploader } from '../../domain/catalog/curriculum.ts';
import { declare } from '../../domain/kernel/field-meta.ts';
import { mapPage } from '../../domain/kernel/pagination.ts';
import { configuredFileStore } from '../../domain/school/file-store.ts';
import {
  deleteStoredFile,
  getStoredFile,
  listStoredFiles,
  openStoredFile,
  type StoredFile,
  storeFile,
} from '../../domain/school/storage.ts';
import { contentDisposition } from '../../http/content-disposition.ts';
import type { OperationContext } from '../define-operation.ts';
import { defineOperation } from '../define-operation.ts';
import { Id, named, PageQuery, pageOf, SearchQuery, Timestamp } from '../schemas.ts';

const FileSchema = named(
  'StoredFile',
  z.object({
    id: Id,
    filename: z.string(),
    content_type: z.string(),
    size_bytes: z.number().int(),
    sha256: z.string().describe('Hex SHA-256 of the bytes.'),
    url: declare(z.string(), { kind: 'url' }).describe(
      'Where the bytes are read back (operator token with `storage:write`).',
    ),
    created_at: Timestamp,
  }),
  'A file in the school’s file store.',
);

const present = (ctx: OperationContext, f: StoredFile): z.output<typeof FileSchema> => ({
  id: f.id,
  filename: f.filename,
  content_type: f.contentType,
  size_bytes: f.sizeBytes,
  sha256: f.sha256,
  url: `${ctx.app.config.baseUrl}/api/v1/storage/files/${f.id}/content`,
  created_at: f.createdAt,
});

const ById = z.strictObject({ file_id: Id });

/** The storage operations: upload, list, metadata, download, delete. */
export const storageOperations = [
  defineOperation({
    name: 'storage.upload',
    summary: 'Upload a file',
    description:
      'Send the bytes as the body with their own Content-Type (and `?filename=`), or as multipart/form-data with a `file` part. Accepted: PNG, JPEG, GIF, WebP, PDF, ZIP, EPUB, MP4, WebM, MP3, plain text, CSV, Markdown; the content must match the declared type (415 otherwise). Size limit: the deployment’s upload limit (413 above it).',
    scope: 'storage:write',
    method: 'POST',
    path: '/api/v1/storage/files',
    input: { query: z.strictObject({ filename: z.string().min(1).max(255).optional() }) },
    binary: 'upload',
    output: FileSchema,
    status: 201,
    examples: {
      response: {
        id: 'fil_01jf3k6m2v8w9x0y1z2a3b4c5d',
        filename: 'logo.png',
        content_type: 'image/png',
        size_bytes: 18213,
        sha256: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
        url: 'https://lectern.example/api/v1/storage/files/fil_01jf3k6m2v8w9x0y1z2a3b4c5d/content',
        created_at: '2026-03-01T09:00:00.000Z',
      },
    },
    handler: async (ctx, { raw }) => {
      const files = configuredFileStore(ctx.app.config);
      const limit = ctx.app.config.uploadLimitBytes;
      const file = await storeFile(ctx.db, files, limit, ctx.schoolId, raw!);
      await noteFileUploader(ctx.db, ctx.schoolId, file.id, ctx.principal.userId);
      return present(ctx, file);
    },
  }),
  defineOperation({
    name: 'storage.list',
    summary: 'List files',
    description:
      'Files oldest first; `content_type` is exact (`image/png`) or a prefix ending in `/` (`image/`); `search` matches the filename.',
    scope: 'storage:write',
    method: 'GET',
    path: '/api/v1/storage/files',
    input: {
      query: z.strictObject({
        ...PageQuery,
        content_type: z.string().max(100).optional(),
        search: SearchQuery,
      }),
    },
    output: pageOf(FileSchema),
    handler: async (ctx, { query }) => {
      const page = await listStoredFiles(
        ctx.db,
        ctx.schoolId,
        { contentType: query.content_type, search: query.search },
        query,
      );
      return mapPage(page, (f) => present(ctx, f));
    },
  }),
  defineOperation({
    name: 'storage.get',
    summary: 'Get a file’s metadata',
    scope: 'storage:write',
    method: 'GET',
    path: '/api/v1/storage/files/{file_id}',
    input: { params: ById },
    output: FileSchema,
    etag: true,
    handler: async (ctx, { params }) =>
      present(ctx, await getStoredFile(ctx.db, ctx.schoolId, params.file_id)),
  }),
  defineOperation({
    name: 'storage.download',
    summary: 'Download a file',
    description:
      'The bytes with their stored type, as an attachment, sandboxed by CSP, streamed from the store. One byte range is served (`Range: bytes=0-1023`: 206 with `Content-Range`; 416 when it lies beyond the file), subject to `If-Range` against the `ETag` (the SHA-256) or `Last-Modified`; HEAD gives the headers alone. Reading back uses the storage scope because the group has no read scope; public pages serve published files on their own routes.',
    scope: 'storage:write',
    method: 'GET',
    path: '/api/v1/storage/files/{file_id}/content',
    input: { params: ById },
    output: z.any(),
    binary: 'download',
    handler: async (ctx, { params }) => {
      const { file, content } = await openStoredFile(
        ctx.db,
        configuredFileStore(ctx.app.config),
        ctx.schoolId,
        params.file_id,
      );
      return {
        kind: 'binary' as const,
        file: content,
        headers: {
          'Content-Type': file.contentType,
          'Content-Disposition': contentDisposition('attachment', file.filename),
          'Content-Security-Policy': "default-src 'none'; sandbox",
        },
      };
    },
  }),
  defineOperation({
    name: 'storage.delete',
    summary: 'Delete a file',
    description: 'Whatever used it (logo, lecture, product) loses the reference.',
    scope: 'storage:write',
    method: 'DELETE',
    path: '/api/v1/storage/files/{file_id}',
    input: { params: ById },
    handler: async (ctx, { params }) =>
      deleteStoredFile(ctx.db, configuredFileStore(ctx.app.config), ctx.schoolId, params.file_id),
  }),
];
