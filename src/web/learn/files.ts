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
import { configuredFileStore } from '../../domain/school/file-store.ts';
import { findMembership } from '../../domain/school/memberships.ts';
import { standingRoles } from '../../domain/school/standing.ts';
import { openStoredFile } from '../../domain/school/storage.ts';
import { findUserById } from '../../domain/school/users.ts';
import { ProblemError } from '../../errors/problem-error.ts';
import { contentDisposition } from '../../http/content-disposition.ts';
import type { AppContext, AppEnv } from '../../http/context.ts';
import { fileResponse } from '../../http/file-response.ts';
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
    let stored: Awaited<ReturnType<typeof openStoredFile>>;
    try {
      stored = await openStoredFile(ctx.db, configuredFileStore(ctx.config), school.id, lecture.fileId);
    } catch (err) {
      if (err instanceof ProblemError && err.status === 404) return notFound(c, school);
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
