/**
 * The course player: the lecture by its type beside the course outline (stacked on a phone),
 * with Mark complete, Previous and Next. A video resumes where the student stopped; the one
 * script of the site (player.js) saves the position as it plays, and without it the video still
 * plays and Mark complete still works.
 */
import { html } from 'hono/html';
import type { Course } from '../../domain/catalog/courses.ts';
import type { Lecture, Section } from '../../domain/catalog/curriculum-rows.ts';
import type { EnrollmentSummary } from '../../domain/learning/enrollments.ts';
import type { LectureAccess } from '../../domain/learning/lecture-access.ts';
import type { LectureProgress } from '../../domain/learning/lecture-progress.ts';
import { type QuizGrade, quizQuestions } from '../../domain/learning/quizzes.ts';
import type { StoredFile } from '../../domain/school/storage.ts';
import type { Html } from '../layout.ts';
import { csrfField, notice } from '../shared/page-kit.ts';
import { duration, fileSize } from '../shared/school-format.ts';
import { coursePath, filePath, type Learner, learnPath, lecturePath, lecturesOf } from './access.ts';
import { expiredSentence, learnNav, outline, progressBar } from './views.ts';

/** Where the player script is served, inside the learning area (one file for every school). */
export const PLAYER_SCRIPT_PATH = '/player.js';

/** What the player shows about one lecture. */
export interface PlayerInput {
  readonly learner: Learner;
  readonly course: Course;
  readonly sections: readonly Section[];
  readonly lecture: Lecture;
  /** The learner's access to the lecture (the domain's rule): its content shows only when ok. */
  readonly open: LectureAccess;
  /** The learner's enrollment; undefined for staff, who see content without progress. */
  readonly enrollment?: EnrollmentSummary;
  readonly progress: ReadonlyMap<string, LectureProgress>;
  /** The stored file of a file or uploaded-video lecture, when it still exists. */
  readonly file?: StoredFile;
  /** A graded quiz attempt to show. */
  readonly grade?: QuizGrade;
  readonly done?: string;
}

/** The page's body and the CSP directives it needs beyond the layout's (script, media). */
export interface PlayerPage {
  readonly body: Html;
  readonly directives: string[];
}

const MEDIA = /\.(mp4|m4v|webm|ogv|ogg|mov|mp3|m4a)$/i;

// A video address a <video> element can play directly, or undefined (a page to link to).
function directMedia(url: string): URL | undefined {
  try {
    const u = new URL(url);
    return (u.protocol === 'https:' || u.protocol === 'http:') && MEDIA.test(u.pathname) ? u : undefined;
  } catch {
    return undefined;
  }
}

/** A text body as paragraphs, escaped: blank lines part paragraphs, line breaks stay. */
function paragraphs(body: string | null): Html {
  const parts = (body ?? '')
    .split(/\r?\n\s*\r?\n/)
    .map((p) => p.trim())
    .filter(Boolean);
  return html`${parts.map((p) => html`<p class="prose">${p}</p>`)}`;
}

/** Whether the learner's progress is recorded here: an enrolled student whose access runs. */
const recordsProgress = (input: PlayerInput) => input.open.ok && input.open.as === 'enrolled';

function videoPart(input: PlayerInput, directives: string[]): Html {
  const { learner, lecture } = input;
  const saved = input.progress.get(lecture.id)?.positionSeconds ?? 0;
  const fromFile = lecture.fileId && input.file ? filePath(learner.school, lecture.id) : undefined;
  const direct = !fromFile && lecture.videoUrl ? directMedia(lecture.videoUrl) : undefined;
  if (!fromFile && !direct) {
    const page = lecture.videoUrl && URL.canParse(lecture.videoUrl) ? new URL(lecture.videoUrl) : undefined;
    if (!page || (page.protocol !== 'https:' && page.protocol !== 'http:')) {
      return html`<p class="muted">The video of this lecture is not available yet.</p>`;
    }
    const host = page.host;
    return html`<p><a href="${lecture.videoUrl}" rel="noopener noreferrer">Watch the video on ${host}</a></p>
<p class="muted">The video opens on another site. Come back here and press Mark complete when you have watched it.</p>`;
  }
  const src = fromFile ?? direct?.href.replace(/#.*$/, '') ?? '';
  directives.push(`media-src ${fromFile ? "'self'" : direct?.origin}`);
  // Only an enrolled student's position is saved: staff and previews play without progress.
  const saving = recordsProgress(input)
    ? html` data-progress-url="${lecturePath(learner.school, input.course.slug, lecture.id)}/position" data-csrf="${learner.viewer.csrf}"`
    : '';
  if (saving) directives.push("script-src 'self'", "connect-src 'self'");
  return html`<video controls preload="metadata" src="${saved > 0 ? `${src}#t=${saved}` : src}" data-start="${saved}"${saving} aria-label="Video: ${lecture.title}">
<p><a href="${src}">Open the video</a></p>
</video>
${saved > 0 ? html`<p class="muted">You stopped at ${clock(saved)}; the video starts there.</p>` : ''}`;
}

/** Seconds as "1:35" or "1:02:03". */
function clock(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

function filePart(input: PlayerInput): Html {
  const { learner, lecture, file } = input;
  if (!lecture.fileId || !file)
    return html`<p class="muted">The file of this lecture is not available yet.</p>`;
  const size = fileSize(learner.school, file.sizeBytes);
  return html`<p><a class="button" href="${filePath(learner.school, lecture.id)}" download="${file.filename}">Download ${file.filename}</a> <span class="muted">(${size})</span></p>`;
}

function quizPart(input: PlayerInput): Html {
  const { learner, lecture, grade } = input;
  const questions = quizQuestions(lecture.body);
  if (questions.length === 0) {
    return html`<p class="muted">This quiz has no questions yet. Press Mark complete when you are done.</p>`;
  }
  const action = `${lecturePath(learner.school, input.course.slug, lecture.id)}/quiz`;
  return html`${
    grade
      ? html`<div id="quiz-result">${notice(
          grade.passed ? 'success' : 'error',
          grade.passed
            ? `All ${questions.length} answers are right. ${input.enrollment ? 'This lecture is complete.' : ''}`
            : `${grade.rightCount} of ${questions.length} answers are right. Change the others and check again.`,
        )}</div>`
      : ''
  }
<form method="post" action="${action}">${csrfField(learner.viewer)}
${questions.map((q, i) => {
  const answer = grade?.answers[i];
  const status = answer
    ? answer.correct
      ? 'Right'
      : answer.chosen === null
        ? 'Not answered'
        : 'Not right'
    : '';
  return html`<fieldset${answer ? html` aria-describedby="q${i}-status"` : ''}>
<legend>${i + 1}. ${q.prompt}</legend>
${q.choices.map(
  (choice, j) =>
    html`<label class="check"><input type="radio" name="q${i}" value="${j}"${answer?.chosen === j ? html` checked` : ''}> ${choice}</label>`,
)}
${answer ? html`<p id="q${i}-status" class="${answer.correct ? 'field-ok' : 'field-error'}"><strong>${status}</strong></p>` : ''}
</fieldset>`;
})}
<div class="actions start"><button class="primary" type="submit">Check answers</button></div>
</form>`;
}

function contentOf(input: PlayerInput, directives: string[]): Html {
  const { lecture } = input;
  switch (lecture.type) {
    case 'video':
      return html`${videoPart(input, directives)}${paragraphs(lecture.body)}`;
    case 'file':
      return html`${filePart(input)}${paragraphs(lecture.body)}`;
    case 'quiz':
      return quizPart(input);
    default:
      return lecture.body
        ? paragraphs(lecture.body)
        : html`<p class="muted">This lecture has no text yet.</p>`;
  }
}

const TYPE_WORD: Record<Lecture['type'], string> = {
  video: 'Video',
  text: 'Text',
  quiz: 'Quiz',
  file: 'File',
};

/** The player page for one lecture. */
export function playerPage(input: PlayerInput): PlayerPage {
  const { learner, course, sections, lecture, enrollment } = input;
  const directives: string[] = [];
  const all = lecturesOf(sections);
  const at = all.findIndex((l) => l.id === lecture.id);
  const previous = at > 0 ? all[at - 1] : undefined;
  const next = at >= 0 && at < all.length - 1 ? all[at + 1] : undefined;
  const completed = input.progress.get(lecture.id)?.completed === true;
  const gradedQuiz = lecture.type === 'quiz' && quizQuestions(lecture.body).length > 0;
  const content = input.open.ok
    ? contentOf(input, directives)
    : notice(
        'error',
        enrollment ? html`${expiredSentence(learner, enrollment)}` : 'This lecture is not open to you.',
      );
  const completeForm =
    recordsProgress(input) && !gradedQuiz
      ? completed
        ? html`<p class="notice success"><strong>Completed.</strong> ${next ? 'Go on with the next lecture.' : 'That was the last lecture of the course.'}</p>`
        : html`<form method="post" action="${lecturePath(learner.school, course.slug, lecture.id)}/complete">${csrfField(learner.viewer)}
<div class="actions start"><button class="primary" type="submit">Mark complete</button></div></form>`
      : gradedQuiz && completed
        ? html`<p class="notice success"><strong>Completed.</strong></p>`
        : '';
  const doneNotice =
    input.done === 'next'
      ? notice('success', 'The previous lecture is marked complete. Here is the next one.')
      : input.done === 'completed'
        ? notice('success', 'Lecture marked complete.')
        : '';
  const body = html`${learnNav(learner)}
<p><a href="${coursePath(learner.school, course.slug)}">${course.title}</a></p>
<div class="learn">
<article aria-labelledby="lecture-title">
${doneNotice}
<h1 id="lecture-title">${lecture.title}</h1>
<p class="muted">${TYPE_WORD[lecture.type]}${duration(lecture.durationSeconds) ? ` · ${duration(lecture.durationSeconds)}` : ''}${completed ? ' · Completed' : ''}</p>
${enrollment ? '' : notice('warning', 'You teach this course or run this school: no progress is recorded.')}
${content}
${completeForm}
<nav aria-label="Lectures" class="pager">
${previous ? html`<a href="${lecturePath(learner.school, course.slug, previous.id)}" rel="prev">Previous: ${previous.title}</a>` : ''}
${next ? html`<a href="${lecturePath(learner.school, course.slug, next.id)}" rel="next">Next: ${next.title}</a>` : ''}
</nav>
</article>
<aside aria-label="Course outline">
<h2>Course outline</h2>
${enrollment ? progressBar('course-progress', enrollment.progressPercent) : ''}
${outline(learner, course, sections, input.progress, lecture.id)}
</aside>
</div>
${directives.some((d) => d.startsWith('script-src')) ? html`<script src="${learnPath(learner.school, PLAYER_SCRIPT_PATH)}" defer></script>` : ''}`;
  return { body, directives };
}
