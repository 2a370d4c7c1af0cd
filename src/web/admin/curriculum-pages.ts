/**
 * `/admin/<school>/courses/<course>/curriculum`: the curriculum editor. Every read and change
 * runs a catalogue operation through runForConsole, so the API's validation, the school's
 * isolation and the one permission check decide here as they do for REST and MCP. A section or
 * lecture is reached through its course: one of another course, another school or none at all
 * is the same 404 page. The lecture forms are lecture-pages.ts.
 */
import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { ProblemError } from '../../errors/problem-error.ts';
import { sendAreaPage } from '../shared/page-kit.ts';
import { type ConsoleEnv, postedForm, staff } from './console-env.ts';
import {
  courseOf,
  coursePage,
  done,
  editor,
  isMissing,
  notInCourse,
  REUSED,
  run,
  sectionOf,
  sectionsOf,
  titleWords,
} from './curriculum-kit.ts';
import { deleteSectionPage, fitted, renameSectionPage, SECTION_TITLE_MAX } from './curriculum-views.ts';
import { lectureRoutes } from './lecture-pages.ts';

const showEditor = coursePage((c, courseId) => editor(c, courseId, 200, { done: c.req.query('done') }));

const addSection = coursePage(async (c, courseId) => {
  const f = postedForm(c);
  const title = f.get('title') ?? '';
  // The form's one-time key: a double click (or a resent form) adds the section once.
  const key = f.get('_key') || randomUUID();
  try {
    const raw = { params: { course_id: courseId }, body: { title } };
    await run(c, 'curriculum.create_section', raw, { idempotencyKey: key });
  } catch (err) {
    if (!(err instanceof ProblemError) || err.status !== 422 || isMissing(err)) throw err;
    if (err.code === REUSED) {
      const error = 'This form was already used to add a section. Use the form below to add another.';
      return editor(c, courseId, 422, { error });
    }
    const newTitleError = titleWords(title, SECTION_TITLE_MAX);
    return editor(c, courseId, 422, { newTitle: fitted(title, SECTION_TITLE_MAX), newTitleError, key });
  }
  return done(c, courseId, 'section-added');
});

const renameSectionForm = coursePage(async (c, courseId) => {
  const course = await courseOf(c, courseId);
  const section = await sectionOf(c, courseId, c.req.param('section') ?? '');
  const page = renameSectionPage(c.var.area, course, section, section.title, { etag: section.etag });
  return sendAreaPage(c, 200, 'Rename section', page);
});

const renameSection = coursePage(async (c, courseId) => {
  const { area } = c.var;
  const f = postedForm(c);
  const section = await sectionOf(c, courseId, c.req.param('section') ?? '');
  const title = f.get('title') ?? '';
  // The version the form was opened with: a save over someone else's is refused (412).
  const etag = f.get('_etag') ?? '';
  try {
    const raw = { params: { section_id: section.id }, body: { title } };
    await run(c, 'curriculum.update_section', raw, { ifMatch: etag || undefined });
  } catch (err) {
    if (!(err instanceof ProblemError) || isMissing(err)) throw err;
    const course = await courseOf(c, courseId);
    const value = fitted(title, SECTION_TITLE_MAX);
    // Someone renamed it in between: their title above, ours in the form with their ETag,
    // so a second Save replaces theirs on purpose.
    if (err.status === 412) {
      const page = renameSectionPage(area, course, section, value, { etag: section.etag, theirs: section });
      return sendAreaPage(c, 409, 'Rename section', page);
    }
    if (err.status !== 422) throw err;
    const error = titleWords(title, SECTION_TITLE_MAX);
    const page = renameSectionPage(area, course, section, value, { error, etag });
    return sendAreaPage(c, 422, 'Rename section', page);
  }
  return done(c, courseId, 'section-renamed');
});

// Moving is swapping with the neighbour and putting the whole order through the reorder operation.
const moveSection = coursePage(async (c, courseId) => {
  const sections = await sectionsOf(c, courseId);
  const ids = sections.map((s) => s.id);
  const at = ids.indexOf(c.req.param('section') ?? '');
  if (at === -1) throw notInCourse(c);
  const up = postedForm(c).get('direction') === 'up';
  const to = up ? at - 1 : at + 1;
  if (to < 0 || to >= ids.length) {
    const error = `“${sections[at].title}” is already the ${up ? 'first' : 'last'} section.`;
    return editor(c, courseId, 409, { error });
  }
  [ids[at], ids[to]] = [ids[to], ids[at]];
  await run(c, 'curriculum.reorder_sections', {
    params: { course_id: courseId },
    body: { section_ids: ids },
  });
  return done(c, courseId, 'section-moved', `#section-${sections[at].id}`);
});

const askDeleteSection = coursePage(async (c, courseId) => {
  const course = await courseOf(c, courseId);
  const section = await sectionOf(c, courseId, c.req.param('section') ?? '');
  return sendAreaPage(c, 200, 'Delete section?', deleteSectionPage(c.var.area, course, section));
});

const deleteSection = coursePage(async (c, courseId) => {
  const section = await sectionOf(c, courseId, c.req.param('section') ?? '');
  await run(c, 'curriculum.delete_section', { params: { section_id: section.id } });
  return done(c, courseId, 'section-deleted');
});

/** The curriculum editor's routes (lecturers of the course open them too). */
export function curriculumRoutes(): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const base = '/:school/courses/:course/curriculum';
  app.get(base, staff, showEditor);
  app.post(`${base}/sections`, staff, addSection);
  app.get(`${base}/sections/:section/rename`, staff, renameSectionForm);
  app.post(`${base}/sections/:section/rename`, staff, renameSection);
  app.post(`${base}/sections/:section/move`, staff, moveSection);
  app.get(`${base}/sections/:section/delete`, staff, askDeleteSection);
  app.post(`${base}/sections/:section/delete`, staff, deleteSection);
  app.route('/', lectureRoutes(base));
  return app;
}
