/*
 * A quiz lecture's questions, kept in the lecture's Markdown `body` as a numbered list whose
 * choices are task-list items, the right one ticked:
 *
 *   1. Which keyword declares a constant?
 *      - [ ] let
 *      - [x] const
 *
 * so the body reads as a quiz wherever Markdown is shown, and every surface that edits or plays
 * a quiz reads and writes it with these two functions and checks it with one rule.
 */

/** A question with its choices; `answer` is the index of the right choice. */
export interface QuizQuestion {
  readonly prompt: string;
  readonly choices: readonly string[];
  readonly answer: number;
}

/** A quiz's problem, by question (0-based) and what is wrong. */
export interface QuizIssue {
  readonly question: number;
  readonly part: 'prompt' | 'choices' | 'answer';
  readonly message: string;
}

const QUESTION = /^\d+\.\s+(.*)$/;
const CHOICE = /^\s+[-*]\s+\[( |x|X)\]\s+(.*)$/;

// One line each: a prompt or a choice with a line break would end the list item early.
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** The questions of a quiz body; lines that are neither a question nor a choice are ignored. */
export function quizFromMarkdown(body: string | null): QuizQuestion[] {
  const questions: { prompt: string; choices: string[]; answer: number }[] = [];
  for (const line of (body ?? '').split(/\r?\n/)) {
    const q = QUESTION.exec(line);
    if (q) {
      questions.push({ prompt: oneLine(q[1]), choices: [], answer: -1 });
      continue;
    }
    const c = CHOICE.exec(line);
    const current = questions.at(-1);
    if (c && current) {
      if (c[1] !== ' ' && current.answer === -1) current.answer = current.choices.length;
      current.choices.push(oneLine(c[2]));
    }
  }
  return questions;
}

/** A quiz body from its questions (the inverse of quizFromMarkdown). */
export function quizToMarkdown(questions: readonly QuizQuestion[]): string {
  return questions
    .map(
      (q, i) =>
        `${i + 1}. ${oneLine(q.prompt)}\n${q.choices.map((c, j) => `   - [${j === q.answer ? 'x' : ' '}] ${oneLine(c)}`).join('\n')}`,
    )
    .join('\n\n');
}

/** What makes a quiz answerable: each question has a prompt, two choices or more, one right. */
export function quizIssues(questions: readonly QuizQuestion[]): QuizIssue[] {
  const issues: QuizIssue[] = [];
  questions.forEach((q, question) => {
    if (oneLine(q.prompt) === '') issues.push({ question, part: 'prompt', message: 'needs a question' });
    if (q.choices.filter((c) => oneLine(c) !== '').length < 2)
      issues.push({ question, part: 'choices', message: 'needs at least two choices' });
    else if (q.answer < 0 || q.answer >= q.choices.length || oneLine(q.choices[q.answer]) === '')
      issues.push({ question, part: 'answer', message: 'needs one right answer among its choices' });
  });
  return issues;
}
