/**
 * The curriculum editor's pages: a course's sections and lectures in order with their actions,
 * the section and lecture forms (a lecture's content by its type), and the delete confirmations.
 */
import { html } from 'hono/html';
import { LectureCreate, SectionCreate } from '../../domain/catalog/curriculum-rows.ts';
import type { QuizQuestion } from '../../domain/catalog/quiz.ts';
import type { Html } from '../layout.ts';
import { confirmForm, csrfField, notice } from '../shared/page-kit.ts';
import { type Area, areaNav, areaPath } from './area.ts';
import { type ApiFile, fileTypeWords } from './files-views.ts';

/** A lecture as the curriculum operations return it. */
export interface ApiLecture {
  readonly id: string;
  readonly section_id: string;
  readonly title: string;
  readonly type: LectureType;
  readonly duration_seconds: number;
  readonly is_free_preview: boolean;
  readonly position: number;
  readonly body: string | null;
  readonly video_url: string | null;
  readonly file_id: string | null;
}

/** A section with its lectures in order. */
export interface ApiSection {
  readonly id: string;
  readonly course_id: string;
  readonly title: string;
  readonly position: number;
  readonly lectures: readonly ApiLecture[];
}

/** The course the editor is about. */
export interface CourseHead {
  readonly id: string;
  readonly title: string;
}

export type LectureType = 'video' | 'text' | 'file' | 'quiz';

/** Lecture types in the order the forms offer them, in words. */
const LECTURE_TYPE_WORDS: Readonly<Record<LectureType, string>> = {
  video: 'Video',
  text: 'Text',
  file: 'File',
  quiz: 'Quiz',
};

/** The title rules' own limits, for the fields' maxlength. */
export const SECTION_TITLE_MAX = SectionCreate.shape.title.maxLength ?? 200;
export const LECTURE_TITLE_MAX = LectureCreate.shape.title.maxLength ?? 200;

/**
 * A refused value as a field can hold it: at most `max` characters (a title far over its limit
 * is not echoed back whole), never ending in half a character.
 */
export function fitted(value: string, max: number): string {
  if (value.length <= max) return value;
  const cut = value.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/**
 * Above a form whose save lost a race: someone saved in between, so their version (`theirs`, read
 * only) is shown above the form, which keeps what this person typed and carries the current ETag,
 * so a second Save replaces theirs on purpose. The console's generated edit pages say the same.
 */
function conflictBlock(noun: string, theirs: Html): Html {
  return html`${notice(
    'warning',
    `Someone changed this ${noun} since you opened it. Their version is shown below; your changes are still in the form. Save again to replace their version with yours.`,
  )}<section aria-labelledby="theirs"><h2 id="theirs">Their version</h2>${theirs}</section>
<h2>Your version</h2>`;
}

/** The hidden fields of guarded forms: the ETag an edit form was opened with, a create form's one-time key. */
const etagField = (etag: string | undefined) =>
  etag ? html`<input type="hidden" name="_etag" value="${etag}">` : '';
const keyField = (key: string | undefined) =>
  key ? html`<input type="hidden" name="_key" value="${key}">` : '';

export const isLectureType = (v: unknown): v is LectureType =>
  typeof v === 'string' && Object.hasOwn(LECTURE_TYPE_WORDS, v);

/** Messages shown after a redirect, chosen by a fixed code (nothing from the URL is echoed). */
const DONE: Record<string, string> = {
  'section-added': 'The section was added.',
  'section-renamed': 'The section was renamed.',
  'section-moved': 'The section was moved.',
  'section-deleted': 'The section and its lectures were deleted.',
  'lecture-added': 'The lecture was added.',
  'lecture-saved': 'The lecture was saved.',
  'lecture-moved': 'The lecture was moved.',
  'lecture-deleted': 'The lecture was deleted.',
};

/** Messages for the lecture form after a save that changed the lecture's type. */
const RETYPED = 'The lecture was saved with its new type. Add its content below and save again.';

/** "12 min", "7 min 30 s", "45 s"; nothing for no duration. */
function durationWords(seconds: number): string {
  if (seconds <= 0) return '';
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  if (m === 0) return `${s} s`;
  return s === 0 ? `${m} min` : `${m} min ${s} s`;
}

/** Minutes for the duration field: whole when they are, else one decimal. */
function minutesValue(seconds: number): string {
  if (seconds <= 0) return '';
  return seconds % 60 === 0 ? String(seconds / 60) : String(Math.round(seconds / 6) / 10);
}

export const curriculumPath = (area: Area, courseId: string, rest = '') =>
  areaPath(area.school.id, `/courses/${encodeURIComponent(courseId)}/curriculum${rest}`);
const sectionPath = (area: Area, courseId: string, sectionId: string, rest = '') =>
  curriculumPath(area, courseId, `/sections/${encodeURIComponent(sectionId)}${rest}`);
const lecturePath = (area: Area, courseId: string, lectureId: string, rest = '') =>
  curriculumPath(area, courseId, `/lectures/${encodeURIComponent(lectureId)}${rest}`);

/** A field's error line and the attributes that tie the field to it. */
function fieldError(id: string, error: string | undefined): { attrs: Html | string; line: Html | string } {
  if (!error) return { attrs: '', line: '' };
  return {
    attrs: html` aria-invalid="true" aria-describedby="${id}-error"`,
    line: html`<p class="field-error" id="${id}-error">${error}</p>`,
  };
}

function moveButton(action: string, viewer: Area['viewer'], direction: 'up' | 'down', label: string): Html {
  return html`<form class="inline" method="post" action="${action}">${csrfField(viewer)}<input type="hidden" name="direction" value="${direction}"><button class="secondary small" type="submit" aria-label="${label}">Move ${direction}</button></form>`;
}

function lectureItem(area: Area, courseId: string, l: ApiLecture, first: boolean, last: boolean): Html {
  const facts = [LECTURE_TYPE_WORDS[l.type], durationWords(l.duration_seconds)].filter((f) => f !== '');
  const move = lecturePath(area, courseId, l.id, '/move');
  return html`<li id="lecture-${l.id}">
<p><strong>${l.title}</strong><br><span class="muted">${facts.join(' · ')}</span>${l.is_free_preview ? html` <span class="badge">Free preview</span>` : ''}</p>
<div class="row-actions">
<a href="${lecturePath(area, courseId, l.id, '/edit')}" aria-label="Edit lecture “${l.title}”">Edit</a>
${first ? '' : moveButton(move, area.viewer, 'up', `Move up: lecture “${l.title}”`)}
${last ? '' : moveButton(move, area.viewer, 'down', `Move down: lecture “${l.title}”`)}
<a href="${lecturePath(area, courseId, l.id, '/delete')}" aria-label="Delete lecture “${l.title}”">Delete lecture</a>
</div>
</li>`;
}

function sectionBlock(area: Area, courseId: string, s: ApiSection, first: boolean, last: boolean): Html {
  const move = sectionPath(area, courseId, s.id, '/move');
  return html`<section class="block" aria-labelledby="section-${s.id}">
<h2 id="section-${s.id}">${s.position}. ${s.title}</h2>
<div class="row-actions">
<a href="${sectionPath(area, courseId, s.id, '/rename')}" aria-label="Rename section “${s.title}”">Rename</a>
${first ? '' : moveButton(move, area.viewer, 'up', `Move up: section “${s.title}”`)}
${last ? '' : moveButton(move, area.viewer, 'down', `Move down: section “${s.title}”`)}
<a href="${sectionPath(area, courseId, s.id, '/delete')}" aria-label="Delete section “${s.title}”">Delete section</a>
</div>
${
  s.lectures.length === 0
    ? html`<p class="muted">No lectures yet.</p>`
    : html`<ol class="items">${s.lectures.map((l, i) => lectureItem(area, courseId, l, i === 0, i === s.lectures.length - 1))}</ol>`
}
<p><a href="${sectionPath(area, courseId, s.id, '/lectures/new')}" aria-label="Add lecture to “${s.title}”">Add lecture</a></p>
</section>`;
}

/** What the editor shows besides the curriculum. */
export interface CurriculumState {
  readonly done?: string;
  readonly error?: string;
  /** The add-section form's value and error, when it was refused. */
  readonly newTitle?: string;
  readonly newTitleError?: string;
  /** The add-section form's one-time key (a double click adds one section). */
  readonly key?: string;
}

/** The curriculum editor: the course's sections and lectures in order, and the add-section form. */
export function curriculumPage(
  area: Area,
  course: CourseHead,
  sections: readonly ApiSection[],
  state: CurriculumState,
): Html {
  const done = state.done && Object.hasOwn(DONE, state.done) ? notice('success', DONE[state.done]) : '';
  const lectures = sections.reduce((n, s) => n + s.lectures.length, 0);
  const titleError = fieldError('new-section-title', state.newTitleError);
  return html`${areaNav(area, 'courses')}
<p><a href="${areaPath(area.school.id, `/courses/${encodeURIComponent(course.id)}`)}">Back to the course</a></p>
<h1>${course.title}</h1>
<p class="muted">Curriculum: ${sections.length} ${sections.length === 1 ? 'section' : 'sections'}, ${lectures} ${lectures === 1 ? 'lecture' : 'lectures'}.</p>
${done}${state.error ? notice('error', state.error) : ''}
${sections.length === 0 ? html`<p>This course has no sections yet. Add the first one below.</p>` : ''}
${sections.map((s, i) => sectionBlock(area, course.id, s, i === 0, i === sections.length - 1))}
<h2 id="add-section">Add a section</h2>
<form method="post" action="${curriculumPath(area, course.id, '/sections')}" novalidate>
${csrfField(area.viewer)}${keyField(state.key)}
<label for="new-section-title">Title</label>
<input id="new-section-title" name="title" type="text" maxlength="${SECTION_TITLE_MAX}" required value="${state.newTitle ?? ''}"${titleError.attrs}>
${titleError.line}
<div class="actions start"><button class="primary" type="submit">Add section</button></div>
</form>`;
}

/** The rename form of a section. */
export function renameSectionPage(
  area: Area,
  course: CourseHead,
  section: ApiSection,
  value: string,
  options: { error?: string; etag?: string; theirs?: ApiSection } = {},
): Html {
  const err = fieldError('section-title', options.error);
  const theirs = options.theirs;
  return html`${areaNav(area, 'courses')}
<p><a href="${curriculumPath(area, course.id)}">Back to the curriculum of ${course.title}</a></p>
<h1>Rename section “${section.title}”</h1>
${theirs ? conflictBlock('section', html`<dl><dt>Title</dt><dd>${theirs.title}</dd></dl>`) : ''}
<form method="post" action="${sectionPath(area, course.id, section.id, '/rename')}" novalidate>
${csrfField(area.viewer)}${etagField(options.etag)}
<label for="section-title">Title</label>
<input id="section-title" name="title" type="text" maxlength="${SECTION_TITLE_MAX}" required value="${value}"${err.attrs}>
${err.line}
<div class="actions start"><button class="primary" type="submit">Save</button>
<a href="${curriculumPath(area, course.id)}">Cancel</a></div>
</form>`;
}

/** Asks before deleting a section and its lectures. */
export function deleteSectionPage(area: Area, course: CourseHead, section: ApiSection): Html {
  const n = section.lectures.length;
  return html`${areaNav(area, 'courses')}
<h1>Delete section “${section.title}”?</h1>
<p>${
    n === 0
      ? 'The section has no lectures.'
      : `Its ${n} ${n === 1 ? 'lecture is' : 'lectures are'} deleted with it, and students’ progress on ${n === 1 ? 'it' : 'them'} is lost.`
  } This cannot be undone.</p>
${confirmForm(area.viewer, sectionPath(area, course.id, section.id, '/delete'), 'Delete section', curriculumPath(area, course.id))}`;
}

/** Asks before deleting a lecture. */
export function deleteLecturePage(area: Area, course: CourseHead, lecture: ApiLecture): Html {
  return html`${areaNav(area, 'courses')}
<h1>Delete lecture “${lecture.title}”?</h1>
<p>The ${LECTURE_TYPE_WORDS[lecture.type].toLowerCase()} lecture leaves the curriculum of ${course.title}, and
students’ progress on it is lost. An uploaded file it uses stays in the school’s files. This cannot be undone.</p>
${confirmForm(area.viewer, lecturePath(area, course.id, lecture.id, '/delete'), 'Delete lecture', curriculumPath(area, course.id))}`;
}

/** The first step of a new lecture: its type. */
export function chooseTypePage(area: Area, course: CourseHead, section: ApiSection): Html {
  return html`${areaNav(area, 'courses')}
<p><a href="${curriculumPath(area, course.id)}">Back to the curriculum of ${course.title}</a></p>
<h1>Add a lecture to “${section.title}”</h1>
<form method="get" action="${sectionPath(area, course.id, section.id, '/lectures/new')}">
<fieldset><legend>What kind of lecture?</legend>
${(Object.keys(LECTURE_TYPE_WORDS) as LectureType[]).map(
  (t, i) =>
    html`<label class="check" for="type-${t}"><input type="radio" id="type-${t}" name="type" value="${t}"${i === 0 ? html` checked` : ''}> ${LECTURE_TYPE_WORDS[t]} <span class="muted">· ${TYPE_HINTS[t]}</span></label>`,
)}
</fieldset>
<div class="actions start"><button class="primary" type="submit">Continue</button>
<a href="${curriculumPath(area, course.id)}">Cancel</a></div>
</form>`;
}

const TYPE_HINTS: Readonly<Record<LectureType, string>> = {
  video: 'an uploaded video or a video link',
  text: 'a page of text',
  file: 'a file students download',
  quiz: 'questions with choices',
};

/** A lecture form's values as the person typed them. */
export interface LectureValues {
  readonly title: string;
  readonly type: LectureType;
  readonly freePreview: boolean;
  readonly minutes: string;
  readonly body: string;
  readonly videoUrl: string;
  readonly fileId: string;
  readonly questions: readonly QuizQuestion[];
}

/** The form's values for a stored lecture. */
export function valuesOf(l: ApiLecture, questions: readonly QuizQuestion[]): LectureValues {
  return {
    title: l.title,
    type: l.type,
    freePreview: l.is_free_preview,
    minutes: minutesValue(l.duration_seconds),
    body: l.body ?? '',
    videoUrl: l.video_url ?? '',
    fileId: l.file_id ?? '',
    questions,
  };
}

/** The lecture form, new or existing, with its errors by field name. */
export interface LectureForm {
  readonly course: CourseHead;
  readonly section: ApiSection;
  /** The lecture being edited; absent for a new one. */
  readonly lecture?: ApiLecture;
  readonly values: LectureValues;
  readonly errors: Readonly<Record<string, string>>;
  /** The school's files the lecture may use. */
  readonly files: readonly ApiFile[];
  readonly retyped?: boolean;
  readonly saved?: boolean;
  /** An edit form's ETag: the version it was opened with (or, after a lost race, the current one). */
  readonly etag?: string;
  /** A new lecture form's one-time key (a double click adds one lecture). */
  readonly key?: string;
  /** After a lost race: the version someone else saved, shown read-only above the form. */
  readonly theirs?: ApiLecture;
}

/** Rows of questions shown: the quiz's own and two empty ones to add more. */
const EMPTY_QUESTIONS = 2;
/** Choice rows per question: its own and two empty ones, at least four. */
const EMPTY_CHOICES = 2;
const MIN_CHOICES = 4;

export const QUIZ_LIMITS = { questions: 100, choices: 20 } as const;

function quizFields(form: LectureForm): Html {
  const rows = [
    ...form.values.questions,
    ...Array.from({ length: EMPTY_QUESTIONS }, () => ({ prompt: '', choices: [], answer: -1 })),
  ].slice(0, QUIZ_LIMITS.questions);
  return html`<h2 id="questions">Questions</h2>
${form.errors.quiz ? html`<p class="field-error" id="quiz-error">${form.errors.quiz}</p>` : ''}
<p class="hint">Each question needs at least two choices; mark the right one. Rows left empty are skipped,
and each save adds ${EMPTY_QUESTIONS} empty questions for more.</p>
${rows.map((q, i) => {
  const n = i + 1;
  const choices = [...q.choices, ...Array.from({ length: EMPTY_CHOICES }, () => '')];
  while (choices.length < MIN_CHOICES) choices.push('');
  const prompt = fieldError(`q${n}-prompt`, form.errors[`q${n}-prompt`]);
  const answerError = form.errors[`q${n}-choices`] ?? form.errors[`q${n}-answer`];
  return html`<fieldset id="q${n}"><legend>Question ${n}</legend>
<label for="q${n}-prompt">Question</label>
<input id="q${n}-prompt" name="q${n}-prompt" type="text" value="${q.prompt}"${prompt.attrs}>
${prompt.line}
<fieldset${answerError ? html` aria-describedby="q${n}-answer-error"` : ''}><legend>Choices (select the right answer)</legend>
${choices.slice(0, QUIZ_LIMITS.choices).map((c, j) => {
  const m = j + 1;
  return html`<div class="choice">
<input type="radio" id="q${n}-right${m}" name="q${n}-answer" value="${m}" aria-label="Choice ${m} is the right answer"${j === q.answer ? html` checked` : ''}>
<input id="q${n}-choice${m}" name="q${n}-choice${m}" type="text" value="${c}" aria-label="Choice ${m}" placeholder="Choice ${m}">
</div>`;
})}
${answerError ? html`<p class="field-error" id="q${n}-answer-error">${answerError}</p>` : ''}
</fieldset>
</fieldset>`;
})}`;
}

function fileOptions(files: readonly ApiFile[], selected: string, none: string): Html {
  return html`<option value="">${none}</option>${files.map(
    (f) =>
      html`<option value="${f.id}"${f.id === selected ? html` selected` : ''}>${f.filename} (${fileTypeWords(f.content_type)})</option>`,
  )}`;
}

function contentFields(form: LectureForm): Html {
  const { values, errors } = form;
  switch (values.type) {
    case 'text': {
      const err = fieldError('lecture-body', errors.body);
      return html`<label for="lecture-body">Text</label>
<textarea id="lecture-body" name="body" rows="12" aria-describedby="lecture-body-hint"${err.attrs}>${values.body}</textarea>
<p class="hint" id="lecture-body-hint">Markdown: # for headings, * for lists, **bold**, [link](https://…).</p>
${err.line}`;
    }
    case 'video': {
      const videos = form.files.filter((f) => f.content_type.startsWith('video/') || f.id === values.fileId);
      const file = fieldError('lecture-file', errors.file_id);
      const upload = fieldError('lecture-upload', errors.upload);
      const url = fieldError('lecture-video-url', errors.video_url);
      return html`<fieldset><legend>Video</legend>
<p class="hint">Choose an uploaded video, upload one now, or give the address of a video elsewhere.</p>
<label for="lecture-file">Uploaded video</label>
<select id="lecture-file" name="file_id"${file.attrs}>${fileOptions(videos, values.fileId, 'No uploaded video')}</select>
${file.line}
<label for="lecture-upload">Or upload a video</label>
<input id="lecture-upload" name="upload" type="file" accept="video/mp4,video/webm"${upload.attrs}>
${upload.line}
<label for="lecture-video-url">Or a video URL</label>
<input id="lecture-video-url" name="video_url" type="url" value="${values.videoUrl}" placeholder="https://"${url.attrs}>
${url.line}
</fieldset>`;
    }
    case 'file': {
      const file = fieldError('lecture-file', errors.file_id);
      const upload = fieldError('lecture-upload', errors.upload);
      return html`<fieldset><legend>File to download</legend>
<label for="lecture-file">Uploaded file</label>
<select id="lecture-file" name="file_id"${file.attrs}>${fileOptions(form.files, values.fileId, 'No file')}</select>
${file.line}
<label for="lecture-upload">Or upload a file</label>
<input id="lecture-upload" name="upload" type="file"${upload.attrs}>
${upload.line}
</fieldset>`;
    }
    case 'quiz':
      return quizFields(form);
  }
}

/** A lecture's content in words: its text, its file (by name) or its video's address. */
function contentWords(l: ApiLecture, files: readonly ApiFile[]): Html {
  const file = (id: string) => files.find((f) => f.id === id)?.filename ?? 'an uploaded file';
  switch (l.type) {
    case 'text':
    case 'quiz':
      return l.body ? html`<div class="prose">${l.body}</div>` : html`<span class="muted">No text</span>`;
    case 'video':
      if (l.file_id) return html`Uploaded video: ${file(l.file_id)}`;
      return l.video_url ? html`Video URL: ${l.video_url}` : html`<span class="muted">No video</span>`;
    case 'file':
      return l.file_id ? html`File: ${file(l.file_id)}` : html`<span class="muted">No file</span>`;
  }
}

/** Someone else's saved version of a lecture, read-only. */
function theirLecture(l: ApiLecture, files: readonly ApiFile[]): Html {
  const facts = [durationWords(l.duration_seconds), l.is_free_preview ? 'Free preview' : ''].filter(
    (f) => f !== '',
  );
  return html`<dl>
<dt>Title</dt><dd>${l.title}</dd>
<dt>Type</dt><dd>${LECTURE_TYPE_WORDS[l.type]}${facts.length > 0 ? ` · ${facts.join(' · ')}` : ''}</dd>
<dt>${l.type === 'quiz' ? 'Questions' : 'Content'}</dt><dd>${contentWords(l, files)}</dd>
</dl>`;
}

/** The form of a new or existing lecture: its fields, and its content by type. */
export function lecturePage(area: Area, form: LectureForm): Html {
  const { course, section, lecture, values, errors } = form;
  const action = lecture
    ? lecturePath(area, course.id, lecture.id, '/edit')
    : sectionPath(area, course.id, section.id, '/lectures');
  const title = fieldError('lecture-title', errors.title);
  const type = fieldError('lecture-type', errors.type);
  const minutes = fieldError('lecture-minutes', errors.minutes);
  const count = Object.keys(errors).length;
  return html`${areaNav(area, 'courses')}
<p><a href="${curriculumPath(area, course.id)}">Back to the curriculum of ${course.title}</a></p>
<h1>${lecture ? html`Edit lecture “${lecture.title}”` : html`New ${LECTURE_TYPE_WORDS[values.type].toLowerCase()} lecture in “${section.title}”`}</h1>
${form.retyped ? notice('warning', RETYPED) : ''}${form.saved ? notice('success', 'The lecture was saved.') : ''}
${count > 0 ? notice('error', count === 1 && errors[''] ? `The lecture was not saved: ${errors['']}` : `The lecture was not saved: ${count === 1 ? 'one field needs' : `${count} fields need`} a change (marked below).`) : ''}
${form.theirs ? conflictBlock('lecture', theirLecture(form.theirs, form.files)) : ''}
<form method="post" action="${action}" enctype="multipart/form-data" novalidate>
${csrfField(area.viewer)}${lecture ? etagField(form.etag) : keyField(form.key)}<input type="hidden" name="shown" value="${values.type}">
<label for="lecture-title">Title</label>
<input id="lecture-title" name="title" type="text" maxlength="${LECTURE_TITLE_MAX}" required value="${values.title}"${title.attrs}>
${title.line}
<label for="lecture-type">Type</label>
<select id="lecture-type" name="type" aria-describedby="lecture-type-hint"${type.attrs}>${(
    Object.keys(LECTURE_TYPE_WORDS) as LectureType[]
  ).map(
    (t) =>
      html`<option value="${t}"${t === values.type ? html` selected` : ''}>${LECTURE_TYPE_WORDS[t]}</option>`,
  )}</select>
<p class="hint" id="lecture-type-hint">Changing the type shows that type’s content fields after you save.</p>
${type.line}
<label for="lecture-minutes">Duration (minutes)</label>
<input id="lecture-minutes" name="minutes" type="text" inputmode="decimal" maxlength="8" value="${values.minutes}" aria-describedby="lecture-minutes-hint"${minutes.attrs}>
<p class="hint" id="lecture-minutes-hint">How long the lecture takes, for example 12. Leave empty for none.</p>
${minutes.line}
<label class="check" for="lecture-free-preview"><input type="checkbox" id="lecture-free-preview" name="free_preview" value="on"${values.freePreview ? html` checked` : ''}> Free preview: anyone can open this lecture without enrolling</label>
${contentFields(form)}
<div class="actions start"><button class="primary" type="submit">${lecture ? 'Save' : 'Add lecture'}</button>
<a href="${curriculumPath(area, course.id)}">Cancel</a></div>
</form>`;
}
