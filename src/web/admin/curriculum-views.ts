/**
 * The curriculum editor's pages: a course's sections and lectures in order with their actions,
 * the section and lecture forms (a lecture's content by its type), and the delete confirmations.
 */
import { html } from 'hono/html';
import { LectureCreate, SectionCreate } from '../../domain/catalog/curriculum-rows.ts';
import type { Html } from '../layout.ts';
import { confirmForm, csrfField, notice } from '../shared/page-kit.ts';
import { type Area, areaNav, areaPath } from './area.ts';

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
export const LECTURE_TYPE_WORDS: Readonly<Record<LectureType, string>> = {
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
export function conflictBlock(noun: string, theirs: Html): Html {
  return html`${notice(
    'warning',
    `Someone changed this ${noun} since you opened it. Their version is shown below; your changes are still in the form. Save again to replace their version with yours.`,
  )}<section aria-labelledby="theirs"><h2 id="theirs">Their version</h2>${theirs}</section>
<h2>Your version</h2>`;
}

/** The hidden fields of guarded forms: the ETag an edit form was opened with, a create form's one-time key. */
export const etagField = (etag: string | undefined) =>
  etag ? html`<input type="hidden" name="_etag" value="${etag}">` : '';
export const keyField = (key: string | undefined) =>
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
export const RETYPED = 'The lecture was saved with its new type. Add its content below and save again.';

/** "12 min", "7 min 30 s", "45 s"; nothing for no duration. */
export function durationWords(seconds: number): string {
  if (seconds <= 0) return '';
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  if (m === 0) return `${s} s`;
  return s === 0 ? `${m} min` : `${m} min ${s} s`;
}

/** Minutes for the duration field: whole when they are, else one decimal. */
export function minutesValue(seconds: number): string {
  if (seconds <= 0) return '';
  return seconds % 60 === 0 ? String(seconds / 60) : String(Math.round(seconds / 6) / 10);
}

export const curriculumPath = (area: Area, courseId: string, rest = '') =>
  areaPath(area.school.id, `/courses/${encodeURIComponent(courseId)}/curriculum${rest}`);
export const sectionPath = (area: Area, courseId: string, sectionId: string, rest = '') =>
  curriculumPath(area, courseId, `/sections/${encodeURIComponent(sectionId)}${rest}`);
export const lecturePath = (area: Area, courseId: string, lectureId: string, rest = '') =>
  curriculumPath(area, courseId, `/lectures/${encodeURIComponent(lectureId)}${rest}`);

/** A field's error line and the attributes that tie the field to it. */
export function fieldError(
  id: string,
  error: string | undefined,
): { attrs: Html | string; line: Html | string } {
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
