/**
 * A quiz through the member tools: my_course_progress gives its questions and choices, never the
 * answer key (the body's `- [x]` marks), and record_progress completes it only with answers that
 * pass it; otherwise a tool error with the reason (`quiz_not_passed`), as the Account API says.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createCourse } from '../../src/domain/catalog/courses.ts';
import { createLecture, createSection } from '../../src/domain/catalog/curriculum.ts';
import { enroll } from '../../src/domain/learning/enrollments.ts';
import { issueTestToken } from '../support/tokens.ts';
import { type Seeded, seedSchool } from '../support/world-mcp.ts';
import { connectClient, type LiveApp, startLiveApp } from './harness.ts';

type Text = Array<{ type: string; text: string }>;

const QUIZ = `1. Which keyword declares a constant?
   - [ ] let
   - [x] const

2. Is TypeScript typed?
   - [x] Yes
   - [ ] No`;

describe('MCP member tools and a quiz', () => {
  let live: LiveApp;
  let seeded: Seeded;
  let token: string;
  let quizId: string;
  before(async () => {
    live = await startLiveApp();
    seeded = await seedSchool(live.t);
    const db = live.t.runtime.db;
    const course = await createCourse(db, seeded.schoolId, {
      slug: 'quiz-course',
      title: 'Quiz course',
      status: 'published',
    });
    const section = await createSection(db, seeded.schoolId, course.id, { title: 'Check' });
    const quiz = await createLecture(db, seeded.schoolId, section.id, {
      title: 'Constants quiz',
      type: 'quiz',
      body: QUIZ,
    });
    quizId = quiz.id;
    await enroll(db, seeded.schoolId, { userId: seeded.studentId, courseId: course.id });
    token = (
      await issueTestToken(live.t, {
        userId: seeded.studentId,
        schoolId: seeded.schoolId,
        audience: 'member',
        scopes: ['openid', 'account:read', 'account:write'],
      })
    ).token;
  });
  after(() => live.close());

  it('my_course_progress gives the quiz as questions and choices, without the key', async () => {
    const { client } = await connectClient(live, { token });
    const res = await client.callTool({ name: 'my_course_progress', arguments: { course: 'quiz-course' } });
    assert.equal(res.isError, undefined, JSON.stringify(res));
    const out = res.structuredContent as { sections: Array<{ lectures: Array<Record<string, unknown>> }> };
    assert.deepEqual(out.sections[0].lectures[0].quiz, {
      questions: [
        { prompt: 'Which keyword declares a constant?', choices: ['let', 'const'] },
        { prompt: 'Is TypeScript typed?', choices: ['Yes', 'No'] },
      ],
      passPercent: 100,
    });
    assert.doesNotMatch(JSON.stringify(res), /\[x\]|\[ \]/);
    await client.close();
  });

  it('record_progress completes a quiz only with passing answers', async () => {
    const { client } = await connectClient(live, { token });
    const bare = await client.callTool({
      name: 'record_progress',
      arguments: { lectureId: quizId, positionSeconds: 0, completed: true },
    });
    assert.equal(bare.isError, true);
    assert.match(
      (bare.content as Text)[0].text,
      /\(quiz_not_passed\): Answer the quiz to complete it: every question must be answered right\./,
    );
    const wrong = await client.callTool({
      name: 'record_progress',
      arguments: { lectureId: quizId, positionSeconds: 0, completed: true, answers: [0, 0] },
    });
    assert.equal(wrong.isError, true);
    assert.match((wrong.content as Text)[0].text, /quiz_not_passed/);
    const right = await client.callTool({
      name: 'record_progress',
      arguments: { lectureId: quizId, positionSeconds: 0, completed: true, answers: [1, 0] },
    });
    assert.equal(right.isError, undefined, JSON.stringify(right));
    const out = right.structuredContent as {
      lecture: { completed: boolean };
      enrollment: { progressPercent: number };
    };
    assert.equal(out.lecture.completed, true);
    assert.equal(out.enrollment.progressPercent, 100);
    await client.close();
  });
});
