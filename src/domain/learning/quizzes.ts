import { type QuizQuestion, quizFromMarkdown, quizIssues } from '../catalog/quiz.ts';

/**
 * Taking a quiz lecture: the questions a student is asked (those of the body, catalog/quiz.ts,
 * that are answerable) and the grade of an attempt. The right answers stay here: a page gets the
 * questions and the grade, never the key.
 */

/** How many questions right, in percent, a quiz needs to pass: every one. */
export const QUIZ_PASS_PERCENT = 100;

/** A question as the student sees it: the prompt and its choices, in order. */
export interface AskedQuestion {
  prompt: string;
  choices: string[];
}

/** Quizzes longer than this are cut (a lecture body is at most 200,000 characters anyway). */
const MAX_QUESTIONS = 100;

// The body's questions that can be answered (a prompt, two choices or more, one right).
function answerable(body: string | null): QuizQuestion[] {
  const questions = quizFromMarkdown(body);
  const broken = new Set(quizIssues(questions).map((i) => i.question));
  return questions.filter((_, i) => !broken.has(i)).slice(0, MAX_QUESTIONS);
}

/** The questions a quiz body asks, without their answers ([] when it asks none). */
export function quizQuestions(body: string | null): AskedQuestion[] {
  return answerable(body).map(({ prompt, choices }) => ({ prompt, choices: [...choices] }));
}

/** One graded answer: what was chosen (null when none) and whether it is right. */
interface GradedAnswer {
  chosen: number | null;
  correct: boolean;
}

/** A graded attempt: each question's answer, and passed when every question is answered right. */
export interface QuizGrade {
  answers: GradedAnswer[];
  rightCount: number;
  passed: boolean;
}

/**
 * Grades answers (a choice index per asked question, in order; anything else counts as
 * unanswered). A quiz passes when every question is answered right; one without questions never
 * passes (it is completed like any other lecture).
 */
export function gradeQuiz(body: string | null, answers: readonly (number | null)[]): QuizGrade {
  const graded = answerable(body).map((q, i) => {
    const chosen = answers[i];
    const valid =
      typeof chosen === 'number' && Number.isInteger(chosen) && chosen >= 0 && chosen < q.choices.length;
    return { chosen: valid ? chosen : null, correct: valid && chosen === q.answer };
  });
  const rightCount = graded.filter((a) => a.correct).length;
  return { answers: graded, rightCount, passed: graded.length > 0 && rightCount === graded.length };
}

/** Why a lecture may, or may not, be marked completed. */
export type Completion = { ok: true } | { ok: false; reason: 'quiz_not_passed'; grade: QuizGrade };

/**
 * Whether a lecture may be marked completed with these answers: any lecture but a quiz that asks
 * questions, and such a quiz only when the answers pass it (gradeQuiz). A quiz without answerable
 * questions is completed like any other lecture.
 */
export function mayComplete(
  lecture: { type: string; body: string | null },
  answers: readonly (number | null)[] | undefined,
): Completion {
  if (lecture.type !== 'quiz' || answerable(lecture.body).length === 0) return { ok: true };
  const grade = gradeQuiz(lecture.body, answers ?? []);
  return grade.passed ? { ok: true } : { ok: false, reason: 'quiz_not_passed', grade };
}
