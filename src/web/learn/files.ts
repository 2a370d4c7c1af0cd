/**
 * A lecture's file, `/schools/<subdomain>/learn/files/<lectureId>`: checked on every request, so
 * the address is worth nothing to anyone else. It reaches the course's students whose access
 * has not ended, its lecturers and the school's operators; anyone gets the file of a free-preview
 * lecture of a published course. Another school's lecture, or a person who is not a member of
 * the school, gets the 404 page.
 */

import { type Context, Hono } from 'hono';
import { findCourse } from '../../domain/catalog/courses.ts';
import { getLecture } from '../../domain/catalog/curriculum.ts';
import type { Lecture } from '../../domain/catalog/curriculum-rows.ts';
import { findMembership } from '../../domain/school/memberships.ts';
import { standingRoles } from '../../domain/school/standing.ts';
import { readStoredFile } from '../../domain/school/storage.ts';
import { findUserById } from '../../domain/school/users.ts';
import { ProblemError } from '../../errors/problem-error.ts';
import { contentDisposition } from '../../http/content-disposition.ts';
import type { AppContext, AppEnv } from '../../http/context.ts';
import { currentSession } from '../../http/sessions.ts';
import {
  isStaffOf,
  type Learner,
  learnerEnrollments,
  learnMessage,
  learnPath,
  notFound,
  plausibleId,
  schoolOfRequest,
  sitePath,
} from './access.ts';
import { schoolFormat } from './format.ts';

async function lectureOf(ctx: AppContext, schoolId: string, id: string): Promise<Lecture | undefined> {
  try {
    return await getLecture(ctx.db, schoolId, id);
  } catch (err) {
    if (err instanceof ProblemError && err.status === 404) return undefined;
    throw err;
  }
}

/** One `bytes=a-b` range within `size`, or undefined for none or one this route does not serve. */
function rangeOf(
  header: string | undefined,
  size: number,
): { start: number; end: number } | 'bad' | undefined {
  if (!header) return undefined;
  const m = /^bytes=(\d{0,15})-(\d{0,15})$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (m[1] === '') {
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  return start > end || start >= size ? 'bad' : { start, end };
}

/** The file route of the learning area. */
export function createLectureFilesApp(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/schools/:subdomain/learn/files/:lectureId', async (c) => {
    const school = await schoolOfRequest(ctx, c);
    if (!school) return notFound(c);
    const id = c.req.param('lectureId');
    const lecture = plausibleId(id) ? await lectureOf(ctx, school.id, id) : undefined;
    const course = lecture ? await findCourse(ctx.db, school.id, lecture.courseId) : undefined;
    const open = lecture?.isFreePreview === true && course?.status === 'published';
    if (!open) {
      const session = await currentSession(ctx, c);
      const user = session ? await findUserById(ctx.db, session.userId) : undefined;
      if (!session || !user) {
        const back = new URL(c.req.url).pathname;
        return c.redirect(`/login?return_to=${encodeURIComponent(back)}`, 302);
      }
      const roles = standingRoles(await findMembership(ctx.db, school.id, user.id));
      if (roles.length === 0 || !lecture || !course)
        return notFound(c, roles.length > 0 ? school : undefined);
      const learner: Learner = {
        viewer: { session, user, csrf: '' },
        school,
        scope: { schoolId: school.id, userId: user.id },
        roles,
        format: schoolFormat(school),
      };
      const enrollment = (await learnerEnrollments(ctx, learner)).find((e) => e.courseId === course.id);
      if (!enrollment?.active && !(await isStaffOf(ctx, learner, course))) {
        return learnMessage(
          c,
          403,
          enrollment ? 'Your access has ended' : "You're not enrolled in this course",
          enrollment
            ? `Your access to "${course.title}" has ended, and with it its files. Contact the school to renew it.`
            : `This file belongs to "${course.title}", which is not one of your courses.`,
          [
            {
              href: sitePath(school, `/courses/${encodeURIComponent(course.slug)}`),
              label: `See ${course.title}`,
            },
            { href: learnPath(school), label: 'Go to My courses' },
          ],
        );
      }
    }
    if (!lecture?.fileId) return notFound(c, school);
    let stored: Awaited<ReturnType<typeof readStoredFile>>;
    try {
      stored = await readStoredFile(ctx.db, ctx.config.filesDir, school.id, lecture.fileId);
    } catch (err) {
      if (err instanceof ProblemError && err.status === 404) return notFound(c, school);
      throw err;
    }
    return sendFile(c, stored, lecture.type === 'video' ? 'inline' : 'attachment');
  });

  return app;
}

// The bytes with their stored type (the store accepted only allowlisted, sniffed types), never
// cached by shared caches, sandboxed should a browser render them; a single byte range for
// seeking in a video.
function sendFile(
  c: Context,
  { file, bytes }: Awaited<ReturnType<typeof readStoredFile>>,
  disposition: 'inline' | 'attachment',
): Response {
  const headers: Record<string, string> = {
    'Content-Type': file.contentType,
    'Content-Disposition': contentDisposition(disposition, file.filename),
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'private, no-store',
    'Content-Security-Policy': "default-src 'none'; sandbox",
    'Accept-Ranges': 'bytes',
  };
  const range = rangeOf(c.req.header('range'), bytes.length);
  if (range === 'bad') {
    return c.body(null, 416, { ...headers, 'Content-Range': `bytes */${bytes.length}` });
  }
  if (range) {
    const part = bytes.subarray(range.start, range.end + 1);
    return c.body(part, 206, {
      ...headers,
      'Content-Range': `bytes ${range.start}-${range.end}/${bytes.length}`,
      'Content-Length': String(part.length),
    });
  }
  return c.body(bytes, 200, { ...headers, 'Content-Length': String(bytes.length) });
}
