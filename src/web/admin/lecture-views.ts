/** The curriculum editor's lecture pages: choosing a new lecture's type, and its form (a quiz's questions included). */
import { html } from 'hono/html';
import type { QuizQuestion } from '../../domain/catalog/quiz.ts';
import type { Html } from '../layout.ts';
import { csrfField, notice } from '../shared/page-kit.ts';
import { type Area, areaNav } from './area.ts';
import {
  type ApiLecture,
  type ApiSection,
  type CourseHead,
  conflictBlock,
  curriculumPath,
  durationWords,
  etagField,
  fieldError,
  keyField,
  LECTURE_TITLE_MAX,
  LECTURE_TYPE_WORDS,
  type LectureType,
  lecturePath,
  minutesValue,
  RETYPED,
  sectionPath,
} from './curriculum-views.ts';
import { type ApiFile, fileTypeWords } from './files-views.ts';

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
