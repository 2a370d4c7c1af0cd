/**
 * `/admin/<school>/courses/<course>/curriculum`: the curriculum editor. Every read and change
 * runs a catalogue operation through runForConsole, so the API's validation, the school's
 * isolation and the one permission check decide here as they do for REST and MCP. A section or
 * lecture is reached through its course: one of another course, another school or none at all
 * is the same 404 page.
 */
import { randomUUID } from 'node:crypto';
import { type Context, Hono } from 'hono';
import { parseInput } from '../../admin/invoke.ts';
import {
  type QuizQuestion,
  quizFromMarkdown,
  quizIssues,
  quizToMarkdown,
} from '../../domain/catalog/quiz.ts';
import { ProblemError } from '../../errors/problem-error.ts';
import type { AppContext, AppEnv } from '../../http/context.ts';
import {
  type MultipartForm,
  messagePage,
  readForm,
  readMultipartForm,
  sendAreaPage,
} from '../shared/page-kit.ts';
import { type Area, staffPage } from './area.ts';
import { consoleOperation, runForConsole } from './console-kit.ts';
import {
  type ApiLecture,
  type ApiSection,
  type CourseHead,
  type CurriculumState,
  chooseTypePage,
  curriculumPage,
  curriculumPath,
  deleteLecturePage,
  deleteSectionPage,
  fitted,
  isLectureType,
  LECTURE_TITLE_MAX,
  type LectureForm,
  type LectureType,
  type LectureValues,
  lecturePage,
  QUIZ_LIMITS,
  renameSectionPage,
  SECTION_TITLE_MAX,
  valuesOf,
} from './curriculum-views.ts';
import { chosenFile, schoolFiles, uploadRefusal, uploadThroughConsole } from './files-pages.ts';

/** A section or lecture as read, with the ETag a form guards its save with. */
type Read<T> = T & { readonly etag: string };

/** A create form's one-time key sent again with other values: the form was already used. */
const REUSED = 'idempotency_key_reused';
const USED_LECTURE_FORM = 'this form was already used to add a lecture. Open a new form to add another.';

/** Not this course's (or this school's, or anyone's): the one answer for all three. */
class NotFound extends Error {}

// An unknown id, one of another school, or one that is not even id-shaped: all "not found".
const isMissing = (err: unknown) =>
  err instanceof NotFound ||
  (err instanceof ProblemError &&
    (err.status === 404 ||
      (err.status === 422 &&
        (err.errors ?? []).length > 0 &&
        err.errors!.every((e) => e.field.startsWith('params.')))));

/** Why a title was refused, in words: missing, or longer than its rule allows. */
const titleWords = (title: string, max: number) =>
  title.trim() === '' ? 'Enter a title.' : `Shorten the title to at most ${max} characters.`;

/** A refused field of the lecture operations, in words, by the form's field name. */
function lectureFieldWords(field: string, message: string, title: string): [string, string] {
  switch (field) {
    case 'body.title':
      return ['title', titleWords(title, LECTURE_TITLE_MAX)];
    case 'body.type':
      return ['type', 'Choose a type.'];
    case 'body.duration_seconds':
      return ['minutes', 'Enter the duration in minutes as a number, like 12.'];
    case 'body.is_free_preview':
      return ['free_preview', 'Tick the box or leave it empty.'];
    case 'body.body':
      return ['body', 'The text is too long.'];
    case 'body.video_url':
      return ['video_url', 'Enter a full web address that starts with https:// (or http://).'];
    case 'body.file_id':
      return ['file_id', 'Choose one of the school’s files.'];
    default:
      return [field.replace(/^body\./, ''), message];
  }
}

/** Whole or decimal minutes as seconds; anything else is passed on for the operation to refuse. */
function durationSeconds(minutes: string): number | string {
  const m = minutes.trim();
  if (m === '') return 0;
  return /^\d{1,6}(\.\d{1,2})?$/.test(m) ? Math.round(Number(m) * 60) : m;
}

const text = (form: MultipartForm, name: string): string => {
  const v = form[name];
  return typeof v === 'string' ? v : '';
};

/**
 * The quiz rows of a form: rows left empty are skipped; the right answer is a choice's number
 * (`q<n>-answer`), kept pointing at the same choice when empty choices drop out.
 */
function questionsOf(form: MultipartForm): QuizQuestion[] {
  const questions: QuizQuestion[] = [];
  for (let n = 1; n <= QUIZ_LIMITS.questions; n++) {
    const prompt = text(form, `q${n}-prompt`).trim();
    const picked = Number(text(form, `q${n}-answer`));
    const choices: string[] = [];
    let answer = -1;
    for (let m = 1; m <= QUIZ_LIMITS.choices; m++) {
      const choice = text(form, `q${n}-choice${m}`).trim();
      if (choice === '') continue;
      if (m === picked) answer = choices.length;
      choices.push(choice);
    }
    if (prompt !== '' || choices.length > 0) questions.push({ prompt, choices, answer });
  }
  return questions;
}

/** The curriculum editor's pages, mounted by one line in pages.ts. */
export function createCurriculumPagesApp(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const base = '/admin/:school/courses/:course/curriculum';

  const run = (
    area: Area,
    name: string,
    raw: Parameters<typeof runForConsole>[3],
    options?: Parameters<typeof runForConsole>[4],
  ) => runForConsole(ctx, area, name, raw, options);

  async function courseOf(area: Area, courseId: string): Promise<CourseHead> {
    const { body } = await run(area, 'courses.get', { params: { course_id: courseId } });
    const course = body as CourseHead;
    return { id: course.id, title: course.title };
  }
  async function sectionsOf(area: Area, courseId: string): Promise<ApiSection[]> {
    const { body } = await run(area, 'curriculum.get', { params: { course_id: courseId } });
    return (body as { sections: ApiSection[] }).sections;
  }
  async function sectionOf(area: Area, courseId: string, sectionId: string): Promise<Read<ApiSection>> {
    const { body, etag } = await run(area, 'curriculum.get_section', { params: { section_id: sectionId } });
    const section = body as ApiSection;
    if (section.course_id !== courseId) throw new NotFound();
    return { ...section, etag: etag ?? '' };
  }
  async function lectureOf(area: Area, courseId: string, lectureId: string): Promise<Read<ApiLecture>> {
    const { body, etag } = await run(area, 'curriculum.get_lecture', { params: { lecture_id: lectureId } });
    const lecture = body as ApiLecture & { course_id: string };
    if (lecture.course_id !== courseId) throw new NotFound();
    return { ...lecture, etag: etag ?? '' };
  }

  type Handler = (c: Context<AppEnv>, area: Area, courseId: string) => Promise<Response>;
  // A page of a course, for its school's operators and the lecturers who teach it (every read
  // and change runs through runForConsole's teaching rule); whatever it asks for that is not
  // there, or not theirs, is the 404 page.
  const coursePage = (handler: Handler) =>
    staffPage(ctx, async (c, area) => {
      try {
        return await handler(c, area, c.req.param('course') ?? '');
      } catch (err) {
        if (!isMissing(err)) throw err;
        return messagePage(
          c,
          404,
          'Not found',
          'This school has no such course, section or lecture. It may have been deleted.',
          { href: `/admin/${encodeURIComponent(area.school.id)}`, label: 'Back to the admin area' },
        );
      }
    });
  // A CSRF-checked url-encoded form, then the handler.
  const change = (
    handler: (c: Context<AppEnv>, area: Area, courseId: string, f: URLSearchParams) => Promise<Response>,
  ) =>
    coursePage(async (c, area, courseId) => {
      const form = await readForm(ctx, c, area.viewer);
      return form instanceof Response ? form : handler(c, area, courseId, form);
    });
  const done = (c: Context, area: Area, courseId: string, code: string, anchor = '') =>
    c.redirect(`${curriculumPath(area, courseId)}?done=${code}${anchor}`, 303);

  async function editor(
    c: Context<AppEnv>,
    area: Area,
    courseId: string,
    status: number,
    state: CurriculumState,
  ): Promise<Response> {
    const course = await courseOf(area, courseId);
    const sections = await sectionsOf(area, courseId);
    return sendAreaPage(
      c,
      status,
      `${course.title} · Curriculum`,
      curriculumPage(area, course, sections, { ...state, key: state.key ?? randomUUID() }),
    );
  }

  app.get(
    base,
    coursePage((c, area, courseId) => editor(c, area, courseId, 200, { done: c.req.query('done') })),
  );

  app.post(
    `${base}/sections`,
    change(async (c, area, courseId, f) => {
      const title = f.get('title') ?? '';
      // The form's one-time key: a double click (or a resent form) adds the section once.
      const key = f.get('_key') || randomUUID();
      try {
        await run(
          area,
          'curriculum.create_section',
          { params: { course_id: courseId }, body: { title } },
          { idempotencyKey: key },
        );
      } catch (err) {
        if (!(err instanceof ProblemError) || err.status !== 422 || isMissing(err)) throw err;
        if (err.code === REUSED) {
          const error = 'This form was already used to add a section. Use the form below to add another.';
          return editor(c, area, courseId, 422, { error });
        }
        const newTitleError = titleWords(title, SECTION_TITLE_MAX);
        return editor(c, area, courseId, 422, {
          newTitle: fitted(title, SECTION_TITLE_MAX),
          newTitleError,
          key,
        });
      }
      return done(c, area, courseId, 'section-added');
    }),
  );

  app.get(
    `${base}/sections/:section/rename`,
    coursePage(async (c, area, courseId) => {
      const course = await courseOf(area, courseId);
      const section = await sectionOf(area, courseId, c.req.param('section') ?? '');
      return sendAreaPage(
        c,
        200,
        'Rename section',
        renameSectionPage(area, course, section, section.title, { etag: section.etag }),
      );
    }),
  );

  app.post(
    `${base}/sections/:section/rename`,
    change(async (c, area, courseId, f) => {
      const section = await sectionOf(area, courseId, c.req.param('section') ?? '');
      const title = f.get('title') ?? '';
      // The version the form was opened with: a save over someone else's is refused (412).
      const etag = f.get('_etag') ?? '';
      try {
        await run(
          area,
          'curriculum.update_section',
          { params: { section_id: section.id }, body: { title } },
          { ifMatch: etag || undefined },
        );
      } catch (err) {
        if (!(err instanceof ProblemError) || isMissing(err)) throw err;
        const course = await courseOf(area, courseId);
        const value = fitted(title, SECTION_TITLE_MAX);
        // Someone renamed it in between: their title above, ours in the form with their ETag,
        // so a second Save replaces theirs on purpose.
        if (err.status === 412) {
          const page = renameSectionPage(area, course, section, value, {
            etag: section.etag,
            theirs: section,
          });
          return sendAreaPage(c, 409, 'Rename section', page);
        }
        if (err.status !== 422) throw err;
        const error = titleWords(title, SECTION_TITLE_MAX);
        const page = renameSectionPage(area, course, section, value, { error, etag });
        return sendAreaPage(c, 422, 'Rename section', page);
      }
      return done(c, area, courseId, 'section-renamed');
    }),
  );

  // Moving is swapping with the neighbour and putting the whole order through the reorder operation.
  app.post(
    `${base}/sections/:section/move`,
    change(async (c, area, courseId, f) => {
      const sections = await sectionsOf(area, courseId);
      const ids = sections.map((s) => s.id);
      const at = ids.indexOf(c.req.param('section') ?? '');
      if (at === -1) throw new NotFound();
      const up = f.get('direction') === 'up';
      const to = up ? at - 1 : at + 1;
      if (to < 0 || to >= ids.length) {
        const error = `“${sections[at].title}” is already the ${up ? 'first' : 'last'} section.`;
        return editor(c, area, courseId, 409, { error });
      }
      [ids[at], ids[to]] = [ids[to], ids[at]];
      await run(area, 'curriculum.reorder_sections', {
        params: { course_id: courseId },
        body: { section_ids: ids },
      });
      return done(c, area, courseId, 'section-moved', `#section-${sections[at].id}`);
    }),
  );

  app.get(
    `${base}/sections/:section/delete`,
    coursePage(async (c, area, courseId) => {
      const course = await courseOf(area, courseId);
      const section = await sectionOf(area, courseId, c.req.param('section') ?? '');
      return sendAreaPage(c, 200, 'Delete section?', deleteSectionPage(area, course, section));
    }),
  );

  app.post(
    `${base}/sections/:section/delete`,
    change(async (c, area, courseId) => {
      const section = await sectionOf(area, courseId, c.req.param('section') ?? '');
      await run(area, 'curriculum.delete_section', { params: { section_id: section.id } });
      return done(c, area, courseId, 'section-deleted');
    }),
  );

  // The lecture form: the files a lecture may use come from the storage list.
  async function lectureForm(
    c: Context<AppEnv>,
    area: Area,
    status: number,
    form: Omit<LectureForm, 'files'>,
  ): Promise<Response> {
    // Someone whose role may edit lectures but not read the file store picks no files.
    const files = await schoolFiles(ctx, area).then(
      (r) => r.files,
      (err) => {
        if (err instanceof ProblemError && err.status === 403) return [];
        throw err;
      },
    );
    const title = form.lecture ? 'Edit lecture' : 'New lecture';
    return sendAreaPage(c, status, title, lecturePage(area, { ...form, files }));
  }

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

  app.get(
    `${base}/sections/:section/lectures/new`,
    coursePage(async (c, area, courseId) => {
      const course = await courseOf(area, courseId);
      const section = await sectionOf(area, courseId, c.req.param('section') ?? '');
      const type = c.req.query('type');
      if (!isLectureType(type)) {
        return sendAreaPage(c, 200, 'New lecture', chooseTypePage(area, course, section));
      }
      return lectureForm(c, area, 200, {
        course,
        section,
        values: blank(type),
        errors: {},
        key: randomUUID(),
      });
    }),
  );

  /** Deletes a file this request uploaded for a lecture that was then refused (no orphan file). */
  async function discard(area: Area, fileId: string): Promise<void> {
    try {
      await run(area, 'storage.delete', { params: { file_id: fileId } });
    } catch (err) {
      // Already gone, or a role that may upload but not delete (a lecturer): nothing more to do.
      if (!(err instanceof ProblemError)) throw err;
    }
  }

  /**
   * Saves a lecture form: the fields and the content of the type the form showed (`shown`),
   * checked by the operation's own schemas (and the quiz rule) before a file is uploaded, so a
   * refused form stores nothing; a file uploaded for a save that is then refused is deleted again.
   * A new lecture is created under the form's one-time key (`_key`: a double click adds one); an
   * edit is saved over the version the form was opened with (`_etag`), and a save over someone
   * else's is the form again (409) with their version, this person's values and the current ETag.
   * Returns the saved lecture, or the form again with its errors.
   */
  async function saveLecture(
    c: Context<AppEnv>,
    area: Area,
    course: CourseHead,
    section: ApiSection,
    lecture: Read<ApiLecture> | undefined,
  ): Promise<Response> {
    const form = await readMultipartForm(ctx, c, area.viewer);
    if (form instanceof Response) return form;
    const etag = text(form, '_etag');
    let key = text(form, '_key') || randomUUID();
    // An edit opened with an ETag keeps the type its form showed, so a lost race keeps what was typed.
    const formShown = isLectureType(form.shown) ? form.shown : undefined;
    const shown: LectureType = (lecture && !(etag && formShown) ? lecture.type : formShown) ?? 'text';
    const type = text(form, 'type');
    const values: LectureValues = {
      title: text(form, 'title'),
      type: shown,
      freePreview: text(form, 'free_preview') === 'on',
      minutes: text(form, 'minutes'),
      // Browsers send a textarea's line breaks as CRLF; the Markdown is stored with LF.
      body: text(form, 'body').replace(/\r\n?/g, '\n'),
      videoUrl: text(form, 'video_url').trim(),
      fileId: text(form, 'file_id'),
      questions: shown === 'quiz' ? questionsOf(form) : [],
    };
    const body: Record<string, unknown> = {
      title: values.title,
      type,
      duration_seconds: durationSeconds(values.minutes),
      is_free_preview: values.freePreview,
    };
    if (shown === 'text') body.body = values.body;
    if (shown === 'video') body.video_url = values.videoUrl === '' ? null : values.videoUrl;
    if (shown === 'video' || shown === 'file') body.file_id = values.fileId === '' ? null : values.fileId;
    if (shown === 'quiz') body.body = quizToMarkdown(values.questions);
    const name = lecture ? 'curriculum.update_lecture' : 'curriculum.create_lecture';
    const params: Record<string, string> = lecture ? { lecture_id: lecture.id } : { section_id: section.id };
    const upload = shown === 'video' || shown === 'file' ? chosenFile(form.upload) : undefined;
    const notUploaded = { upload: 'Choose the file again: it was not uploaded.' };

    const errors: Record<string, string> = {};
    for (const issue of quizIssues(values.questions)) {
      errors[`q${issue.question + 1}-${issue.part}`] = `Question ${issue.question + 1} ${issue.message}.`;
    }
    try {
      parseInput(consoleOperation(name), { params, body });
    } catch (err) {
      if (!(err instanceof ProblemError) || isMissing(err)) throw err;
      for (const e of err.errors ?? []) {
        const [field, words] = lectureFieldWords(e.field, e.message, values.title);
        errors[field] ??= words;
      }
    }
    const again = (
      status: number,
      more: Record<string, string> = {},
      race: { theirs: ApiLecture; etag: string } | undefined = undefined,
    ) => {
      const all: Record<string, string> = { ...errors, ...more };
      // A quiz's body is its questions: a refused body is said above them.
      if (shown === 'quiz' && all.body) {
        delete all.body;
        all.quiz = 'The quiz is too long: shorten or remove some questions.';
      }
      const shownValues = { ...values, title: fitted(values.title, LECTURE_TITLE_MAX) };
      return lectureForm(c, area, status, {
        course,
        section,
        lecture,
        values: shownValues,
        errors: all,
        etag: race?.etag ?? etag,
        key,
        theirs: race?.theirs,
      });
    };
    if (Object.keys(errors).length > 0) return again(422, upload ? notUploaded : {});
    // Already changed since the form was opened (the lecture read above is the current one):
    // said before anything is uploaded. The save's If-Match still guards what happens meanwhile.
    if (lecture && etag && etag !== lecture.etag) {
      return again(409, upload ? notUploaded : {}, { theirs: lecture, etag: lecture.etag });
    }
    let uploaded: string | undefined;
    if (upload) {
      try {
        // A new lecture's file under the form's key too: the same form sent twice stores it once.
        uploaded = await uploadThroughConsole(ctx, area, upload, {
          idempotencyKey: lecture ? undefined : `${key}:upload`,
        });
        body.file_id = uploaded;
      } catch (err) {
        if (!(err instanceof ProblemError)) throw err;
        if (err.code === REUSED) return again(422, { '': USED_LECTURE_FORM });
        const reason = uploadRefusal(err, ctx.config.uploadLimitBytes, area.school.locale);
        if (!reason) throw err;
        return again(err.status === 413 ? 413 : 422, { upload: reason });
      }
    }
    let saved: ApiLecture;
    try {
      const options = lecture ? { ifMatch: etag || undefined } : { idempotencyKey: key };
      saved = (await run(area, name, { params, body }, options)).body as ApiLecture;
    } catch (err) {
      const keyed =
        err instanceof ProblemError && (err.code === REUSED || err.code === 'idempotency_key_in_progress');
      // The refused save leaves no file behind. Not when the form's key was already in use: the
      // file may then be the first request's own.
      if (uploaded && !keyed) {
        await discard(area, uploaded);
        // That key's upload is gone: the form comes back as a new one.
        if (!lecture) key = randomUUID();
      }
      if (!(err instanceof ProblemError) || isMissing(err)) throw err;
      const more: Record<string, string> = upload ? { ...notUploaded } : {};
      if (err.status === 412 && lecture) {
        const current = await lectureOf(area, course.id, lecture.id);
        return again(409, more, { theirs: current, etag: current.etag });
      }
      if (err.status !== 422) throw err;
      if (err.code === REUSED) return again(422, { '': USED_LECTURE_FORM });
      for (const e of err.errors ?? []) {
        const [field, words] = lectureFieldWords(e.field, e.message, values.title);
        more[field] ??= words;
      }
      return again(422, more);
    }
    // A new type's content fields show on the lecture's own form.
    if (saved.type !== shown) {
      return c.redirect(`${curriculumPath(area, course.id, `/lectures/${saved.id}/edit`)}?retyped=1`, 303);
    }
    return done(c, area, course.id, lecture ? 'lecture-saved' : 'lecture-added', `#lecture-${saved.id}`);
  }

  app.post(
    `${base}/sections/:section/lectures`,
    coursePage(async (c, area, courseId) => {
      const course = await courseOf(area, courseId);
      const section = await sectionOf(area, courseId, c.req.param('section') ?? '');
      return saveLecture(c, area, course, section, undefined);
    }),
  );

  app.get(
    `${base}/lectures/:lecture/edit`,
    coursePage(async (c, area, courseId) => {
      const course = await courseOf(area, courseId);
      const lecture = await lectureOf(area, courseId, c.req.param('lecture') ?? '');
      const section = await sectionOf(area, courseId, lecture.section_id);
      const questions = lecture.type === 'quiz' ? quizFromMarkdown(lecture.body) : [];
      return lectureForm(c, area, 200, {
        course,
        section,
        lecture,
        values: valuesOf(lecture, questions),
        errors: {},
        etag: lecture.etag,
        retyped: c.req.query('retyped') === '1',
      });
    }),
  );

  app.post(
    `${base}/lectures/:lecture/edit`,
    coursePage(async (c, area, courseId) => {
      const course = await courseOf(area, courseId);
      const lecture = await lectureOf(area, courseId, c.req.param('lecture') ?? '');
      const section = await sectionOf(area, courseId, lecture.section_id);
      return saveLecture(c, area, course, section, lecture);
    }),
  );

  app.post(
    `${base}/lectures/:lecture/move`,
    change(async (c, area, courseId, f) => {
      const lecture = await lectureOf(area, courseId, c.req.param('lecture') ?? '');
      const section = await sectionOf(area, courseId, lecture.section_id);
      const ids = section.lectures.map((l) => l.id);
      const at = ids.indexOf(lecture.id);
      const up = f.get('direction') === 'up';
      const to = up ? at - 1 : at + 1;
      if (to < 0 || to >= ids.length) {
        const error = `“${lecture.title}” is already the ${up ? 'first' : 'last'} lecture of “${section.title}”.`;
        return editor(c, area, courseId, 409, { error });
      }
      [ids[at], ids[to]] = [ids[to], ids[at]];
      await run(area, 'curriculum.reorder_lectures', {
        params: { section_id: section.id },
        body: { lecture_ids: ids },
      });
      return done(c, area, courseId, 'lecture-moved', `#lecture-${lecture.id}`);
    }),
  );

  app.get(
    `${base}/lectures/:lecture/delete`,
    coursePage(async (c, area, courseId) => {
      const course = await courseOf(area, courseId);
      const lecture = await lectureOf(area, courseId, c.req.param('lecture') ?? '');
      return sendAreaPage(c, 200, 'Delete lecture?', deleteLecturePage(area, course, lecture));
    }),
  );

  app.post(
    `${base}/lectures/:lecture/delete`,
    change(async (c, area, courseId) => {
      const lecture = await lectureOf(area, courseId, c.req.param('lecture') ?? '');
      await run(area, 'curriculum.delete_lecture', { params: { lecture_id: lecture.id } });
      return done(c, area, courseId, 'lecture-deleted');
    }),
  );

  return app;
}
