/**
 * What the curriculum editor's handlers share: reading a course, its sections and lectures
 * through the catalogue operations (runForConsole), the one 404 for whatever is not this
 * course's, and the editor page itself.
 */
import { randomUUID } from 'node:crypto';
import type { RawInput } from '../../admin/invoke.ts';
import { ProblemError } from '../../errors/problem-error.ts';
import { sendAreaPage } from '../shared/page-kit.ts';
import { PageRefusal } from '../shared/refusal.ts';
import { areaPath } from './area.ts';
import type { ConsoleContext } from './console-env.ts';
import { runForConsole } from './console-kit.ts';
import {
  type ApiLecture,
  type ApiSection,
  type CourseHead,
  type CurriculumState,
  curriculumPage,
  curriculumPath,
} from './curriculum-views.ts';

/** A section or lecture as read, with the ETag a form guards its save with. */
export type Read<T> = T & { readonly etag: string };

/** A create form's one-time key sent again with other values: the form was already used. */
export const REUSED = 'idempotency_key_reused';

/** Runs a catalogue operation for the person in the console. */
export function run(
  c: ConsoleContext,
  name: string,
  raw: RawInput,
  options?: Parameters<typeof runForConsole>[4],
) {
  return runForConsole(c.var.app, c.var.area, name, raw, options);
}

/** Not this course's (or this school's, or anyone's): the one answer for all three. */
export function notInCourse(c: ConsoleContext): PageRefusal {
  return new PageRefusal(
    404,
    'Not found',
    'This school has no such course, section or lecture. It may have been deleted.',
    { links: [{ href: areaPath(c.var.area.school.id), label: 'Back to the admin area' }] },
  );
}

/** An unknown id, one of another school, or one that is not even id-shaped: all "not found". */
export const isMissing = (err: unknown): boolean =>
  err instanceof ProblemError &&
  (err.status === 404 ||
    (err.status === 422 &&
      (err.errors ?? []).length > 0 &&
      (err.errors ?? []).every((e) => e.field.startsWith('params.'))));

/**
 * A page of a course, for its school's operators and the lecturers who teach it (every read and
 * change runs through runForConsole's teaching rule): whatever it asks for that is not there, or
 * not theirs, is the 404 page.
 */
export function coursePage(handler: (c: ConsoleContext, courseId: string) => Promise<Response>) {
  return async (c: ConsoleContext): Promise<Response> => {
    try {
      return await handler(c, c.req.param('course') ?? '');
    } catch (err) {
      throw isMissing(err) ? notInCourse(c) : err;
    }
  };
}

export async function courseOf(c: ConsoleContext, courseId: string): Promise<CourseHead> {
  const { body } = await run(c, 'courses.get', { params: { course_id: courseId } });
  const course = body as CourseHead;
  return { id: course.id, title: course.title };
}

export async function sectionsOf(c: ConsoleContext, courseId: string): Promise<ApiSection[]> {
  const { body } = await run(c, 'curriculum.get', { params: { course_id: courseId } });
  return (body as { sections: ApiSection[] }).sections;
}

export async function sectionOf(
  c: ConsoleContext,
  courseId: string,
  sectionId: string,
): Promise<Read<ApiSection>> {
  const { body, etag } = await run(c, 'curriculum.get_section', { params: { section_id: sectionId } });
  const section = body as ApiSection;
  if (section.course_id !== courseId) throw notInCourse(c);
  return { ...section, etag: etag ?? '' };
}

export async function lectureOf(
  c: ConsoleContext,
  courseId: string,
  lectureId: string,
): Promise<Read<ApiLecture>> {
  const { body, etag } = await run(c, 'curriculum.get_lecture', { params: { lecture_id: lectureId } });
  const lecture = body as ApiLecture & { course_id: string };
  if (lecture.course_id !== courseId) throw notInCourse(c);
  return { ...lecture, etag: etag ?? '' };
}

/** The editor: the course's sections and lectures, with a notice or an error. */
export async function editor(
  c: ConsoleContext,
  courseId: string,
  status: number,
  state: CurriculumState,
): Promise<Response> {
  const course = await courseOf(c, courseId);
  const sections = await sectionsOf(c, courseId);
  const page = curriculumPage(c.var.area, course, sections, { ...state, key: state.key ?? randomUUID() });
  return sendAreaPage(c, status, `${course.title} · Curriculum`, page);
}

/** The redirect to the editor with its notice (and the item to scroll to). */
export const done = (c: ConsoleContext, courseId: string, code: string, anchor = '') =>
  c.redirect(`${curriculumPath(c.var.area, courseId)}?done=${code}${anchor}`, 303);

/** Why a title was refused, in words: missing, or longer than its rule allows. */
export const titleWords = (title: string, max: number) =>
  title.trim() === '' ? 'Enter a title.' : `Shorten the title to at most ${max} characters.`;
