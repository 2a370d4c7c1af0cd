/** An enrollment's progress lecture by lecture, on its page in the console. */
import { html } from 'hono/html';
import type { Html } from '../../layout.ts';
import { displayValue } from './field-display.ts';
import type { FieldContext } from './fields-schema.ts';

/** One lecture's progress as `students.get_progress` gives it. */
export interface LectureProgressRow {
  readonly lecture_id: string;
  readonly position_seconds: number;
  readonly completed: boolean;
  readonly completed_at: string | null;
}

/** A course's curriculum as `curriculum.get` gives it (what the progress table names). */
export interface CurriculumSection {
  readonly title: string;
  readonly lectures: readonly { readonly id: string; readonly title: string }[];
}

/** "1:35" for 95 seconds, "1:02:05" past an hour. */
function clock(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** An enrollment's progress by lecture, in the curriculum's order: done or where they stopped. */
export function progressSection(
  sections: readonly CurriculumSection[],
  progress: ReadonlyMap<string, LectureProgressRow>,
  fc: FieldContext,
): Html {
  const rows = sections.flatMap((section) =>
    section.lectures.map((lecture) => {
      const p = progress.get(lecture.id);
      const state = p?.completed
        ? html`Done${p.completed_at ? html`, ${displayValue(undefined, p.completed_at, fc)}` : ''}`
        : p && p.position_seconds > 0
          ? `Stopped at ${clock(p.position_seconds)}`
          : 'Not started';
      return html`<tr><td data-label="Section">${section.title}</td><td data-label="Lecture">${lecture.title}</td><td data-label="Progress">${state}</td></tr>`;
    }),
  );
  return html`<h2>Progress by lecture</h2>
${
  rows.length === 0
    ? html`<p>This course has no lectures yet.</p>`
    : html`<div class="table-wrap" role="region" aria-label="Progress by lecture" tabindex="0"><table class="stack">
<thead><tr><th scope="col">Section</th><th scope="col">Lecture</th><th scope="col">Progress</th></tr></thead>
<tbody>${rows}</tbody></table></div>`
}`;
}
