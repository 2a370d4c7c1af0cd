/** What the school's site says its own way; everything else: web/shared/school-format.ts. */
import { money, type School } from '../shared/school-format.ts';

/** A course's price as the catalogue shows it: "Free" for 0, else the amount ("$49.00", "49,00 €"). */
export function price(school: School, amount: number, currency: string): string {
  return amount === 0 ? 'Free' : money(school, amount, currency);
}

/** A lecture type as a word. */
export function lectureKind(type: string): string {
  return { video: 'Video', text: 'Reading', quiz: 'Quiz', file: 'Download' }[type] ?? 'Lesson';
}
