/**
 * `/admin/<school>/files`: the school's files and an upload form. The list and the upload run the
 * storage operations through runForConsole, so the storage rules (allowed types, content that
 * matches its type, the size limit) are the API's; a refusal is the page again with the reason.
 */
import { Hono } from 'hono';
import { ProblemError } from '../../errors/problem-error.ts';
import type { AppContext } from '../../http/context.ts';
import { fileResponse } from '../../http/file-response.ts';
import { sendAreaPage } from '../shared/page-kit.ts';
import { PageRefusal } from '../shared/refusal.ts';
import { fileSize } from '../shared/school-format.ts';
import type { Area } from './area.ts';
import { type ConsoleContext, type ConsoleEnv, operators, postedFile, postedForm } from './console-env.ts';
import { runForConsole } from './console-kit.ts';
import {
  ACCEPTED_WORDS,
  type ApiFile,
  deleteFilePage,
  filePath,
  filesPage,
  filesPath,
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
      return `The file is larger than ${fileSize({ locale }, limitBytes)}.`;
    case 'validation_failed':
      return err.errors?.some((e) => e.field === 'body.file')
        ? 'Choose a file that is not empty.'
        : undefined;
    default:
      return undefined;
  }
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

async function render(c: ConsoleContext, status: number, error?: string): Promise<Response> {
  const { area, app } = c.var;
  const { files, more } = await schoolFiles(app, area);
  const limitBytes = app.config.uploadLimitBytes;
  const page = filesPage(area, files, { done: c.req.query('done'), error, limitBytes, more });
  return sendAreaPage(c, status, `${area.school.name} · Files`, page);
}

/** Stores the chosen file; a refusal of the storage rules is the page again with the reason. */
async function uploadFile(c: ConsoleContext): Promise<Response> {
  const { area, app } = c.var;
  const file = postedFile(c, 'file');
  if (!file) return render(c, 422, 'Choose a file to upload.');
  try {
    await uploadThroughConsole(app, area, file);
  } catch (err) {
    if (!(err instanceof ProblemError)) throw err;
    const reason = uploadRefusal(err, app.config.uploadLimitBytes, area.school.locale);
    if (!reason) throw err;
    return render(c, err.status, reason);
  }
  return c.redirect(`${filesPath(area)}?done=uploaded`, 303);
}

/** One file of the school, or the 404 refusal (another school's id is the same as an unknown one). */
async function fileOf(c: ConsoleContext): Promise<ApiFile> {
  const { area, app } = c.var;
  try {
    const r = await runForConsole(app, area, 'storage.get', {
      params: { file_id: c.req.param('file') ?? '' },
    });
    return r.body as ApiFile;
  } catch (err) {
    if (!(err instanceof ProblemError) || (err.status !== 404 && err.status !== 422)) throw err;
    throw new PageRefusal(
      404,
      'No such file',
      `There is no such file at ${area.school.name}. It may have been deleted.`,
      {
        links: [{ href: filesPath(area), label: 'Back to the files' }],
      },
    );
  }
}

/**
 * The bytes, streamed, with the headers the storage API sends (type, size, a safe name,
 * sandboxed), one byte range and HEAD as the API serves them.
 */
async function downloadFile(c: ConsoleContext): Promise<Response> {
  const { area, app } = c.var;
  const file = await fileOf(c);
  const r = await runForConsole(app, area, 'storage.download', { params: { file_id: file.id } });
  const binary = r.binary;
  if (!binary) throw new Error('storage.download gave no file');
  return fileResponse(c, binary.file, { ...binary.headers, 'Cache-Control': 'private, no-store' });
}

async function askDeleteFile(c: ConsoleContext): Promise<Response> {
  const { area } = c.var;
  const file = await fileOf(c);
  return sendAreaPage(c, 200, `${area.school.name} · Delete ${file.filename}`, deleteFilePage(area, file));
}

async function deleteFile(c: ConsoleContext): Promise<Response> {
  const { area, app } = c.var;
  const file = await fileOf(c);
  // Only the confirmation page's form deletes: a bare POST changes nothing.
  if (postedForm(c).get('confirm') !== 'yes') return c.redirect(`${filePath(area, file.id)}/delete`, 303);
  await runForConsole(app, area, 'storage.delete', { params: { file_id: file.id } });
  return c.redirect(`${filesPath(area)}?done=deleted`, 303);
}

/** The files pages. */
export function fileRoutes(): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  app.get('/:school/files', operators, (c) => render(c, 200));
  app.post('/:school/files', operators, uploadFile);
  app.get('/:school/files/:file/download', operators, downloadFile);
  app.get('/:school/files/:file/delete', operators, askDeleteFile);
  app.post('/:school/files/:file/delete', operators, deleteFile);
  return app;
}
