/**
 * `/admin/<school>/files`: the school's files and an upload form. The list and the upload run the
 * storage operations through runForConsole, so the storage rules (allowed types, content that
 * matches its type, the size limit) are the API's; a refusal is the page again with the reason.
 */
import { type Context, Hono } from 'hono';
import { ProblemError } from '../../errors/problem-error.ts';
import type { AppContext, AppEnv } from '../../http/context.ts';
import { fileResponse } from '../../http/file-response.ts';
import { sendPage } from '../layout.ts';
import { messagePage, readForm, readMultipartForm, sendAreaPage } from '../shared/page-kit.ts';
import { type Area, operatorPage } from './area.ts';
import { runForConsole } from './console-kit.ts';
import {
  ACCEPTED_WORDS,
  type ApiFile,
  deleteFilePage,
  filePath,
  filesPage,
  filesPath,
  sizeWords,
  tooLargeBody,
} from './files-views.ts';

/** At most this many files are read for a list (newest shown first). */
const LIST_PAGES = 5;

/** The school's files, newest first, and whether there are more than were read. */
export async function schoolFiles(
  ctx: AppContext,
  area: Area,
  contentType?: string,
): Promise<{ files: ApiFile[]; more: boolean }> {
  const files: ApiFile[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < LIST_PAGES; page++) {
    const query: Record<string, string> = { limit: '100' };
    if (cursor) query.cursor = cursor;
    if (contentType) query.content_type = contentType;
    const { body } = await runForConsole(ctx, area, 'storage.list', { query });
    const { data, next_cursor } = body as { data: ApiFile[]; next_cursor: string | null };
    files.push(...data);
    cursor = next_cursor ?? undefined;
    if (!cursor) break;
  }
  return { files: files.reverse(), more: cursor !== undefined };
}

/** Why a file was refused, in words, from the storage operation's problem. */
export function uploadRefusal(err: ProblemError, limitBytes: number, locale: string): string | undefined {
  switch (err.code) {
    case 'unsupported_file_type':
      return `This kind of file cannot be stored. Accepted: ${ACCEPTED_WORDS}.`;
    case 'content_type_mismatch':
      return 'The file’s content does not match its type (for example a renamed file). Upload the original file.';
    case 'payload_too_large':
      return `The file is larger than ${sizeWords(limitBytes, locale)}.`;
    case 'validation_failed':
      return err.errors?.some((e) => e.field === 'body.file')
        ? 'Choose a file that is not empty.'
        : undefined;
    default:
      return undefined;
  }
}

/** An uploaded part of a form, or undefined when the person chose no file. */
export function chosenFile(value: string | File | undefined): File | undefined {
  return value instanceof File && (value.size > 0 || value.name !== '') ? value : undefined;
}

/**
 * Stores an uploaded file through the storage operation; its id. With `idempotencyKey` (a create
 * form's one-time key) the same form sent twice with the same file stores it once.
 */
export async function uploadThroughConsole(
  ctx: AppContext,
  area: Area,
  file: File,
  options: { idempotencyKey?: string } = {},
): Promise<string> {
  const raw = {
    bytes: new Uint8Array(await file.arrayBuffer()),
    contentType: file.type,
    filename: file.name,
  };
  const { body } = await runForConsole(ctx, area, 'storage.upload', { query: {}, raw }, options);
  return (body as ApiFile).id;
}

/**
 * Where the 413 page leads back to: the page the form was on (a course's curriculum editor, the
 * files page), else the school's console home. The path's segments are taken as they came.
 */
function tooLargeBack(path: string): { href: string; label: string } {
  const curriculum = /^\/admin\/([^/]+)\/courses\/([^/]+)\/curriculum(?:\/|$)/.exec(path);
  if (curriculum) {
    return {
      href: `/admin/${curriculum[1]}/courses/${curriculum[2]}/curriculum`,
      label: 'Back to the curriculum',
    };
  }
  const school = /^\/admin\/([^/]+)(?:\/|$)/.exec(path)?.[1];
  if (!school) return { href: '/admin', label: 'Back to the admin area' };
  if (/^\/admin\/[^/]+\/files\/?$/.test(path))
    return { href: `/admin/${school}/files`, label: 'Back to the files' };
  return { href: `/admin/${school}`, label: 'Back to the admin area' };
}

/**
 * The page a browser gets for a body over the server's limit (the body limit refuses it before
 * any route runs), saying what to do instead, and a way back to the page the form was on.
 */
export function tooLargePage(c: Context, limitBytes: number): Promise<Response> {
  const body = tooLargeBody(limitBytes, 'en', tooLargeBack(c.req.path));
  return sendPage(c, 413, 'File too large', body, { formAction: ["'self'"] });
}

/** The files pages, mounted by one line in pages.ts. */
export function createFilesPagesApp(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const limitBytes = () => ctx.config.uploadLimitBytes;

  async function render(c: Context<AppEnv>, area: Area, status: number, error?: string): Promise<Response> {
    const { files, more } = await schoolFiles(ctx, area);
    const page = filesPage(area, files, { done: c.req.query('done'), error, limitBytes: limitBytes(), more });
    return sendAreaPage(c, status, `${area.school.name} · Files`, page);
  }

  app.get(
    '/admin/:school/files',
    operatorPage(ctx, (c, area) => render(c, area, 200)),
  );

  app.post(
    '/admin/:school/files',
    operatorPage(ctx, async (c, area) => {
      const form = await readMultipartForm(ctx, c, area.viewer);
      if (form instanceof Response) return form;
      const file = chosenFile(form.file);
      if (!file) return render(c, area, 422, 'Choose a file to upload.');
      try {
        await uploadThroughConsole(ctx, area, file);
      } catch (err) {
        if (!(err instanceof ProblemError)) throw err;
        const reason = uploadRefusal(err, limitBytes(), area.school.locale);
        if (!reason) throw err;
        return render(c, area, err.status, reason);
      }
      return c.redirect(`${filesPath(area)}?done=uploaded`, 303);
    }),
  );

  // One file of the school, or the 404 page (another school's id is the same as an unknown one).
  async function fileOf(c: Context<AppEnv>, area: Area): Promise<ApiFile | Response> {
    try {
      const r = await runForConsole(ctx, area, 'storage.get', {
        params: { file_id: c.req.param('file') ?? '' },
      });
      return r.body as ApiFile;
    } catch (err) {
      if (!(err instanceof ProblemError) || (err.status !== 404 && err.status !== 422)) throw err;
      return messagePage(
        c,
        404,
        'No such file',
        `There is no such file at ${area.school.name}. It may have been deleted.`,
        {
          href: filesPath(area),
          label: 'Back to the files',
        },
      );
    }
  }

  // The bytes, streamed, with the headers the storage API sends (type, size, a safe name,
  // sandboxed), one byte range and HEAD as the API serves them.
  app.get(
    '/admin/:school/files/:file/download',
    operatorPage(ctx, async (c, area) => {
      const file = await fileOf(c, area);
      if (file instanceof Response) return file;
      const r = await runForConsole(ctx, area, 'storage.download', { params: { file_id: file.id } });
      const binary = r.binary;
      if (!binary) throw new Error('storage.download gave no file');
      return fileResponse(c, binary.file, { ...binary.headers, 'Cache-Control': 'private, no-store' });
    }),
  );

  app.get(
    '/admin/:school/files/:file/delete',
    operatorPage(ctx, async (c, area) => {
      const file = await fileOf(c, area);
      if (file instanceof Response) return file;
      return sendAreaPage(
        c,
        200,
        `${area.school.name} · Delete ${file.filename}`,
        deleteFilePage(area, file),
      );
    }),
  );

  app.post(
    '/admin/:school/files/:file/delete',
    operatorPage(ctx, async (c, area) => {
      const form = await readForm(ctx, c, area.viewer);
      if (form instanceof Response) return form;
      const file = await fileOf(c, area);
      if (file instanceof Response) return file;
      // Only the confirmation page's form deletes: a bare POST changes nothing.
      if (form.get('confirm') !== 'yes') return c.redirect(`${filePath(area, file.id)}/delete`, 303);
      await runForConsole(ctx, area, 'storage.delete', { params: { file_id: file.id } });
      return c.redirect(`${filesPath(area)}?done=deleted`, 303);
    }),
  );

  return app;
}
