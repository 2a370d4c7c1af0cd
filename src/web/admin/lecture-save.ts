/**
 * Saving a lecture form: the fields and the content of the type the form showed, checked by the
 * operation's own schemas (and the quiz rule) before a file is uploaded, so a refused form stores
 * nothing; a file uploaded for a save that is then refused is deleted again. A new lecture is
 * created under the form's one-time key (`_key`: a double click adds one); an edit is saved over
 * the version the form was opened with (`_etag`), and a save over someone else's is the form
 * again (409) with their version, this person's values and the current ETag.
 */
import { randomUUID } from 'node:crypto';
import { parseInput } from '../../admin/invoke.ts';
import { type QuizQuestion, quizIssues, quizToMarkdown } from '../../domain/catalog/quiz.ts';
import { ProblemError } from '../../errors/problem-error.ts';
import { sendAreaPage } from '../shared/page-kit.ts';
import { type ConsoleContext, postedFile, postedForm } from './console-env.ts';
import { consoleOperation } from './console-kit.ts';
import { done, isMissing, lectureOf, REUSED, type Read, run, titleWords } from './curriculum-kit.ts';
import {
  type ApiLecture,
  type ApiSection,
  type CourseHead,
  curriculumPath,
  fitted,
  isLectureType,
  LECTURE_TITLE_MAX,
  type LectureType,
} from './curriculum-views.ts';
import { schoolFiles, uploadRefusal, uploadThroughConsole } from './files-pages.ts';
import { type LectureForm, type LectureValues, lecturePage, QUIZ_LIMITS } from './lecture-views.ts';

const USED_LECTURE_FORM = 'this form was already used to add a lecture. Open a new form to add another.';
const NOT_UPLOADED = { upload: 'Choose the file again: it was not uploaded.' };

/** The lecture form, with the files a lecture may use (from the storage list). */
export async function lectureForm(
  c: ConsoleContext,
  status: number,
  form: Omit<LectureForm, 'files'>,
): Promise<Response> {
  const { area, app } = c.var;
  // Someone whose role may edit lectures but not read the file store picks no files.
  const files = await schoolFiles(app, area).then(
    (r) => r.files,
    (err) => {
      if (err instanceof ProblemError && err.status === 403) return [];
      throw err;
    },
  );
  const title = form.lecture ? 'Edit lecture' : 'New lecture';
  return sendAreaPage(c, status, title, lecturePage(area, { ...form, files }));
}

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

/**
 * The quiz rows of a form: rows left empty are skipped; the right answer is a choice's number
 * (`q<n>-answer`), kept pointing at the same choice when empty choices drop out.
 */
function questionsOf(form: URLSearchParams): QuizQuestion[] {
  const text = (name: string) => form.get(name) ?? '';
  const questions: QuizQuestion[] = [];
  for (let n = 1; n <= QUIZ_LIMITS.questions; n++) {
    const prompt = text(`q${n}-prompt`).trim();
    const picked = Number(text(`q${n}-answer`));
    const choices: string[] = [];
    let answer = -1;
    for (let m = 1; m <= QUIZ_LIMITS.choices; m++) {
      const choice = text(`q${n}-choice${m}`).trim();
      if (choice === '') continue;
      if (m === picked) answer = choices.length;
      choices.push(choice);
    }
    if (prompt !== '' || choices.length > 0) questions.push({ prompt, choices, answer });
  }
  return questions;
}

/** What a lecture form sent, and what it becomes for the operation. */
interface Submission {
  readonly course: CourseHead;
  readonly section: ApiSection;
  readonly lecture: Read<ApiLecture> | undefined;
  readonly values: LectureValues;
  /** The type whose content fields the form showed. */
  readonly shown: LectureType;
  readonly etag: string;
  key: string;
  readonly name: string;
  readonly params: Record<string, string>;
  readonly body: Record<string, unknown>;
  readonly upload: File | undefined;
}

/** The form's fields as the lecture operation's body. */
function readSubmission(
  c: ConsoleContext,
  course: CourseHead,
  section: ApiSection,
  lecture: Read<ApiLecture> | undefined,
): Submission {
  const form = postedForm(c);
  const text = (name: string) => form.get(name) ?? '';
  const etag = text('_etag');
  // An edit opened with an ETag keeps the type its form showed, so a lost race keeps what was typed.
  const formShown = isLectureType(form.get('shown')) ? (form.get('shown') as LectureType) : undefined;
  const shown: LectureType = (lecture && !(etag && formShown) ? lecture.type : formShown) ?? 'text';
  const values: LectureValues = {
    title: text('title'),
    type: shown,
    freePreview: text('free_preview') === 'on',
    minutes: text('minutes'),
    // Browsers send a textarea's line breaks as CRLF; the Markdown is stored with LF.
    body: text('body').replace(/\r\n?/g, '\n'),
    videoUrl: text('video_url').trim(),
    fileId: text('file_id'),
    questions: shown === 'quiz' ? questionsOf(form) : [],
  };
  const body: Record<string, unknown> = {
    title: values.title,
    type: text('type'),
    duration_seconds: durationSeconds(values.minutes),
    is_free_preview: values.freePreview,
  };
  if (shown === 'text') body.body = values.body;
  if (shown === 'video') body.video_url = values.videoUrl === '' ? null : values.videoUrl;
  if (shown === 'video' || shown === 'file') body.file_id = values.fileId === '' ? null : values.fileId;
  if (shown === 'quiz') body.body = quizToMarkdown(values.questions);
  return {
    course,
    section,
    lecture,
    values,
    shown,
    etag,
    key: text('_key') || randomUUID(),
    name: lecture ? 'curriculum.update_lecture' : 'curriculum.create_lecture',
    params: lecture ? { lecture_id: lecture.id } : { section_id: section.id },
    body,
    upload: shown === 'video' || shown === 'file' ? postedFile(c, 'upload') : undefined,
  };
}

/** The form's errors by field: the quiz rule's and the operation's schemas'. */
function checkSubmission(sub: Submission): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const issue of quizIssues(sub.values.questions)) {
    errors[`q${issue.question + 1}-${issue.part}`] = `Question ${issue.question + 1} ${issue.message}.`;
  }
  try {
    parseInput(consoleOperation(sub.name), { params: sub.params, body: sub.body });
  } catch (err) {
    if (!(err instanceof ProblemError) || isMissing(err)) throw err;
    for (const e of err.errors ?? []) {
      const [field, words] = lectureFieldWords(e.field, e.message, sub.values.title);
      errors[field] ??= words;
    }
  }
  return errors;
}

/** The form again, with its errors (and, after a lost race, the other person's version). */
function again(
  c: ConsoleContext,
  sub: Submission,
  status: number,
  errors: Record<string, string>,
  race?: { theirs: ApiLecture; etag: string },
): Promise<Response> {
  const all = { ...errors };
  // A quiz's body is its questions: a refused body is said above them.
  if (sub.shown === 'quiz' && all.body) {
    delete all.body;
    all.quiz = 'The quiz is too long: shorten or remove some questions.';
  }
  return lectureForm(c, status, {
    course: sub.course,
    section: sub.section,
    lecture: sub.lecture,
    values: { ...sub.values, title: fitted(sub.values.title, LECTURE_TITLE_MAX) },
    errors: all,
    etag: race?.etag ?? sub.etag,
    key: sub.key,
    theirs: race?.theirs,
  });
}

/** Deletes a file this request uploaded for a lecture that was then refused (no orphan file). */
async function discard(c: ConsoleContext, fileId: string): Promise<void> {
  try {
    await run(c, 'storage.delete', { params: { file_id: fileId } });
  } catch (err) {
    // Already gone, or a role that may upload but not delete (a lecturer): nothing more to do.
    if (!(err instanceof ProblemError)) throw err;
  }
}

/** Stores the chosen file (a new lecture's under the form's key: sent twice, stored once). */
async function uploadChosen(c: ConsoleContext, sub: Submission, file: File): Promise<string | Response> {
  const { area, app } = c.var;
  try {
    const idempotencyKey = sub.lecture ? undefined : `${sub.key}:upload`;
    const id = await uploadThroughConsole(app, area, file, { idempotencyKey });
    sub.body.file_id = id;
    return id;
  } catch (err) {
    if (!(err instanceof ProblemError)) throw err;
    if (err.code === REUSED) return again(c, sub, 422, { '': USED_LECTURE_FORM });
    const reason = uploadRefusal(err, app.config.uploadLimitBytes, area.school.locale);
    if (!reason) throw err;
    return again(c, sub, err.status === 413 ? 413 : 422, { upload: reason });
  }
}

/** A refused save: the uploaded file deleted again, and the form with the reason. */
async function refusedSave(c: ConsoleContext, sub: Submission, uploaded: string | undefined, err: unknown) {
  const keyed =
    err instanceof ProblemError && (err.code === REUSED || err.code === 'idempotency_key_in_progress');
  // The refused save leaves no file behind. Not when the form's key was already in use: the
  // file may then be the first request's own.
  if (uploaded && !keyed) {
    await discard(c, uploaded);
    // That key's upload is gone: the form comes back as a new one.
    if (!sub.lecture) sub.key = randomUUID();
  }
  if (!(err instanceof ProblemError) || isMissing(err)) throw err;
  const more: Record<string, string> = sub.upload ? { ...NOT_UPLOADED } : {};
  if (err.status === 412 && sub.lecture) {
    const current = await lectureOf(c, sub.course.id, sub.lecture.id);
    return again(c, sub, 409, more, { theirs: current, etag: current.etag });
  }
  if (err.status !== 422) throw err;
  if (err.code === REUSED) return again(c, sub, 422, { '': USED_LECTURE_FORM });
  for (const e of err.errors ?? []) {
    const [field, words] = lectureFieldWords(e.field, e.message, sub.values.title);
    more[field] ??= words;
  }
  return again(c, sub, 422, more);
}

/** Saves a lecture form (see the module comment): a redirect, or the form again with its errors. */
export async function saveLecture(
  c: ConsoleContext,
  course: CourseHead,
  section: ApiSection,
  lecture: Read<ApiLecture> | undefined,
): Promise<Response> {
  const sub = readSubmission(c, course, section, lecture);
  const errors = checkSubmission(sub);
  if (Object.keys(errors).length > 0)
    return again(c, sub, 422, { ...errors, ...(sub.upload ? NOT_UPLOADED : {}) });
  // Already changed since the form was opened (the lecture read above is the current one):
  // said before anything is uploaded. The save's If-Match still guards what happens meanwhile.
  if (lecture && sub.etag && sub.etag !== lecture.etag) {
    return again(c, sub, 409, sub.upload ? NOT_UPLOADED : {}, { theirs: lecture, etag: lecture.etag });
  }
  let uploaded: string | undefined;
  if (sub.upload) {
    const stored = await uploadChosen(c, sub, sub.upload);
    if (typeof stored !== 'string') return stored;
    uploaded = stored;
  }
  let saved: ApiLecture;
  try {
    const options = lecture ? { ifMatch: sub.etag || undefined } : { idempotencyKey: sub.key };
    saved = (await run(c, sub.name, { params: sub.params, body: sub.body }, options)).body as ApiLecture;
  } catch (err) {
    return refusedSave(c, sub, uploaded, err);
  }
  // A new type's content fields show on the lecture's own form.
  if (saved.type !== sub.shown) {
    const edit = curriculumPath(c.var.area, course.id, `/lectures/${saved.id}/edit`);
    return c.redirect(`${edit}?retyped=1`, 303);
  }
  return done(c, course.id, lecture ? 'lecture-saved' : 'lecture-added', `#lecture-${saved.id}`);
}
