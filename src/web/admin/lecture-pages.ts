/**
 * The curriculum editor's lecture pages: choosing a new lecture's type, its form, the edit form,
 * moving and deleting. Saving a lecture is lecture-save.ts.
 */
import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { quizFromMarkdown } from '../../domain/catalog/quiz.ts';
import { sendAreaPage } from '../shared/page-kit.ts';
import { type ConsoleEnv, postedForm, staff } from './console-env.ts';
import { courseOf, coursePage, done, editor, lectureOf, run, sectionOf } from './curriculum-kit.ts';
import { deleteLecturePage, isLectureType, type LectureType } from './curriculum-views.ts';
import { lectureForm, saveLecture } from './lecture-save.ts';
import { chooseTypePage, type LectureValues, valuesOf } from './lecture-views.ts';

const blank = (type: LectureType): LectureValues => ({
  title: '',
  type,
  freePreview: false,
  minutes: '',
  body: '',
  videoUrl: '',
  fileId: '',
  questions: [],
});

const newLectureForm = coursePage(async (c, courseId) => {
  const course = await courseOf(c, courseId);
  const section = await sectionOf(c, courseId, c.req.param('section') ?? '');
  const type = c.req.query('type');
  if (!isLectureType(type)) {
    return sendAreaPage(c, 200, 'New lecture', chooseTypePage(c.var.area, course, section));
  }
  return lectureForm(c, 200, { course, section, values: blank(type), errors: {}, key: randomUUID() });
});

const addLecture = coursePage(async (c, courseId) => {
  const course = await courseOf(c, courseId);
  const section = await sectionOf(c, courseId, c.req.param('section') ?? '');
  return saveLecture(c, course, section, undefined);
});

const editLectureForm = coursePage(async (c, courseId) => {
  const course = await courseOf(c, courseId);
  const lecture = await lectureOf(c, courseId, c.req.param('lecture') ?? '');
  const section = await sectionOf(c, courseId, lecture.section_id);
  const questions = lecture.type === 'quiz' ? quizFromMarkdown(lecture.body) : [];
  return lectureForm(c, 200, {
    course,
    section,
    lecture,
    values: valuesOf(lecture, questions),
    errors: {},
    etag: lecture.etag,
    retyped: c.req.query('retyped') === '1',
  });
});

const saveEditedLecture = coursePage(async (c, courseId) => {
  const course = await courseOf(c, courseId);
  const lecture = await lectureOf(c, courseId, c.req.param('lecture') ?? '');
  const section = await sectionOf(c, courseId, lecture.section_id);
  return saveLecture(c, course, section, lecture);
});

const moveLecture = coursePage(async (c, courseId) => {
  const lecture = await lectureOf(c, courseId, c.req.param('lecture') ?? '');
  const section = await sectionOf(c, courseId, lecture.section_id);
  const ids = section.lectures.map((l) => l.id);
  const at = ids.indexOf(lecture.id);
  const up = postedForm(c).get('direction') === 'up';
  const to = up ? at - 1 : at + 1;
  if (to < 0 || to >= ids.length) {
    const error = `“${lecture.title}” is already the ${up ? 'first' : 'last'} lecture of “${section.title}”.`;
    return editor(c, courseId, 409, { error });
  }
  [ids[at], ids[to]] = [ids[to], ids[at]];
  await run(c, 'curriculum.reorder_lectures', {
    params: { section_id: section.id },
    body: { lecture_ids: ids },
  });
  return done(c, courseId, 'lecture-moved', `#lecture-${lecture.id}`);
});

const askDeleteLecture = coursePage(async (c, courseId) => {
  const course = await courseOf(c, courseId);
  const lecture = await lectureOf(c, courseId, c.req.param('lecture') ?? '');
  return sendAreaPage(c, 200, 'Delete lecture?', deleteLecturePage(c.var.area, course, lecture));
});

const deleteLecture = coursePage(async (c, courseId) => {
  const lecture = await lectureOf(c, courseId, c.req.param('lecture') ?? '');
  await run(c, 'curriculum.delete_lecture', { params: { lecture_id: lecture.id } });
  return done(c, courseId, 'lecture-deleted');
});

/** The lecture routes under the curriculum's `base`. */
export function lectureRoutes(base: string): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  app.get(`${base}/sections/:section/lectures/new`, staff, newLectureForm);
  app.post(`${base}/sections/:section/lectures`, staff, addLecture);
  app.get(`${base}/lectures/:lecture/edit`, staff, editLectureForm);
  app.post(`${base}/lectures/:lecture/edit`, staff, saveEditedLecture);
  app.post(`${base}/lectures/:lecture/move`, staff, moveLecture);
  app.get(`${base}/lectures/:lecture/delete`, staff, askDeleteLecture);
  app.post(`${base}/lectures/:lecture/delete`, staff, deleteLecture);
  return app;
}
