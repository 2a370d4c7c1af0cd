/** What the school's site says its own way; amounts and dates: web/shared/school-format.ts. */

/** A lecture type as a word. */
export function lectureKind(type: string): string {
  return { video: 'Video', text: 'Reading', quiz: 'Quiz', file: 'Download' }[type] ?? 'Lesson';
}
