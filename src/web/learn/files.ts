/**
 * A lecture's file, `/schools/<subdomain>/learn/files/<lectureId>`: checked on every request, so
 * the address is worth nothing to anyone else. Who gets it is the domain's lecture-access rule
 * (domain/learning/lecture-access.ts): the course's students whose access has not ended, its
 * lecturers and the school's operators, and anyone for a free-preview lecture of a published
 * course. Another school's lecture, or a person who is not a member of the school, gets the 404
 * page; an anonymous visitor is sent to sign in.
 */

import { type Context, Hono } from 'hono';
import { getLecture } from '../../domain/catalog/curriculum.ts';
import type { Lecture } from '../../domain/catalog/curriculum-rows.ts';
import { lectureAccessOf } from '../../domain/learning/lecture-access.ts';
import { configuredFileStore } from '../../domain/school/file-store.ts';
import { openStoredFile } from '../../domain/school/storage.ts';
import { ProblemError } from '../../errors/problem-error.ts';
import { contentDisposition } from '../../http/content-disposition.ts';
import type { AppContext, AppEnv } from '../../http/context.ts';
import { fileResponse } from '../../http/file-response.ts';
import { currentSession } from '../../http/sessions.ts';
import { PageRedirect } from '../shared/refusal.ts';
import { accessRefusal, notFound, plausibleId, schoolOfRequest } from './access.ts';

async function lectureOf(ctx: AppContext, schoolId: string, id: string): Promise<Lecture | undefined> {
  try {
    return await getLecture(ctx.db, schoolId, id);
  } catch (err) {
    if (err instanceof ProblemError && err.status === 404) return undefined;
    throw err;
  }
}

/** The file route of the learning area. */
export function createLectureFilesApp(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/files/:lectureId', async (c) => {
    const school = await schoolOfRequest(ctx, c);
    if (!school) throw notFound();
    const id = c.req.param('lectureId');
    const lecture = plausibleId(id) ? await lectureOf(ctx, school.id, id) : undefined;
    const session = await currentSession(ctx, c);
    const found = lecture && (await lectureAccessOf(ctx.db, school.id, session?.userId, lecture));
    if (!lecture || !found?.access.ok) {
      if (!session) {
        throw new PageRedirect(`/login?return_to=${encodeURIComponent(new URL(c.req.url).pathname)}`);
      }
      const refused = found?.access.ok === false ? found.access : undefined;
      throw refused && found?.course
        ? accessRefusal({ school }, found.course, refused.reason)
        : notFound(school);
    }
    if (!lecture.fileId) throw notFound(school);
    let stored: Awaited<ReturnType<typeof openStoredFile>>;
    try {
      stored = await openStoredFile(ctx.db, configuredFileStore(ctx.config), school.id, lecture.fileId);
    } catch (err) {
      if (err instanceof ProblemError && err.status === 404) throw notFound(school);
      throw err;
    }
    return sendFile(c, stored, lecture.type === 'video' ? 'inline' : 'attachment');
  });

  return app;
}

// The bytes with their stored type (the store accepted only allowlisted, sniffed types), never
// cached by shared caches, sandboxed should a browser render them; streamed from the store, with
// one byte range for seeking in a video (http/file-response.ts).
function sendFile(
  c: Context,
  { file, content }: Awaited<ReturnType<typeof openStoredFile>>,
  disposition: 'inline' | 'attachment',
): Promise<Response> {
  return fileResponse(c, content, {
    'Content-Type': file.contentType,
    'Content-Disposition': contentDisposition(disposition, file.filename),
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'private, no-store',
    'Content-Security-Policy': "default-src 'none'; sandbox",
  });
}
