/**
 * A quiz lecture on every member surface: it is completed only by passing it (a direct POST to
 * Mark complete and the Account API's recordLectureProgress(completed: true) without passing
 * answers are refused with the same reason), and no surface hands out its answer key (the
 * body's `- [x]` marks): the player, the Account API's Lecture and the school site's preview.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { updateLecture } from '../../src/domain/catalog/curriculum.ts';
import { DEMO } from '../../src/domain/demo/demo-constants.ts';
import { gql } from '../account/graphql.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import type { Browser } from '../support/oauth-flow.ts';
import { createWorld, type World } from '../support/world.ts';
import { csrfOf, signedIn } from './pages-support.ts';

const LEARN = '/schools/demo/learn';
const TS = `${LEARN}/courses/${DEMO.courses.typescript}`;
const QUIZ = `Answer both.

1. Which type takes a type parameter?
   - [ ] string
   - [x] Array<T>
   - [ ] number

2. What does "strict" turn on?
   - [x] Every strict check
   - [ ] Nothing`;

const PROGRESS = `mutation ($input: RecordLectureProgressInput!) {
  recordLectureProgress(input: $input) { lectureProgress { completed } enrolledCourse { progressPercent } }
}`;

describe('a quiz is completed by passing it, and its key reaches no member surface', () => {
  let t: TestApp;
  let world: World;
  let student: Browser;
  let quizId: string;
  let token: string;

  before(async () => {
    t = await createTestApp();
    world = await createWorld(t);
    student = await signedIn(t, 'student@example.com');
    const row = await t.runtime.db
      .selectFrom('lectures')
      .select('id')
      .where('school_id', '=', world.demo.schoolId)
      .where('title', '=', 'Check your understanding')
      .executeTakeFirstOrThrow();
    quizId = row.id;
    await updateLecture(t.runtime.db, world.demo.schoolId, quizId, { body: QUIZ });
    token = await world.demo.token(
      ['openid', 'account:read', 'account:write'],
      'member',
      world.demo.studentId,
    );
  });
  after(() => t.close());

  const quizProgress = async () =>
    (
      await t.runtime.db
        .selectFrom('lecture_progress')
        .select('completed_at')
        .where('lecture_id', '=', quizId)
        .execute()
    ).filter((r) => r.completed_at !== null).length;

  it('a direct POST to Mark complete on a quiz is refused: "Answer the quiz to complete it" (422)', async () => {
    const quiz = `${TS}/lectures/${quizId}`;
    const csrf = await csrfOf(student, quiz);
    const res = await student.postForm(`${quiz}/complete`, { csrf_token: csrf });
    assert.equal(res.status, 422);
    const page = await res.text();
    assert.match(page, /<h1>Answer the quiz to complete it<\/h1>/);
    assert.match(page, /Answer the quiz to complete it: every question must be answered right\./);
    assert.match(page, new RegExp(`<a href="${quiz}">Back to the lecture</a>`));
    assert.equal(await quizProgress(), 0, 'nothing was recorded');
  });

  it('recordLectureProgress(completed: true) without passing answers is QUIZ_NOT_PASSED; with them it completes', async () => {
    const none = await gql(t, token, PROGRESS, {
      input: { lectureId: quizId, positionSeconds: 0, completed: true },
    });
    assert.equal(none.status, 200);
    assert.deepEqual(none.body.errors?.[0].extensions, { code: 'QUIZ_NOT_PASSED' });
    assert.equal(
      none.body.errors?.[0].message,
      'Answer the quiz to complete it: every question must be answered right.',
    );
    assert.equal(none.body.data.recordLectureProgress, null);

    const wrong = await gql(t, token, PROGRESS, {
      input: { lectureId: quizId, positionSeconds: 0, completed: true, answers: [0, 0] },
    });
    assert.deepEqual(wrong.body.errors?.[0].extensions, { code: 'QUIZ_NOT_PASSED' });
    assert.equal(await quizProgress(), 0);

    const right = await gql(t, token, PROGRESS, {
      input: { lectureId: quizId, positionSeconds: 0, completed: true, answers: [1, 0] },
    });
    assert.equal(right.body.errors, undefined, JSON.stringify(right.body));
    assert.equal(right.body.data.recordLectureProgress.lectureProgress.completed, true);
    assert.equal(await quizProgress(), 1);
  });

  it('hostile answers are a validation error, never a 500', async () => {
    const res = await gql(t, token, PROGRESS, {
      input: { lectureId: quizId, positionSeconds: 0, completed: true, answers: Array(101).fill(0) },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.errors?.[0].extensions?.code, 'BAD_USER_INPUT');
  });

  it('the Account API gives a quiz its questions and choices, and no body: the key never leaves', async () => {
    const res = await gql(
      t,
      token,
      `{ viewer { enrolledCourses(first: 10) { nodes { slug course { sections { lectures {
        id type body quiz { passPercent questions { prompt choices } } } } } } } } }`,
    );
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body));
    const lectures = res.body.data.viewer.enrolledCourses.nodes
      .find((n: { slug: string }) => n.slug === DEMO.courses.typescript)
      .course.sections.flatMap((s: { lectures: unknown[] }) => s.lectures);
    const quiz = lectures.find((l: { id: string }) => l.id === quizId);
    assert.deepEqual(quiz, {
      id: quizId,
      type: 'QUIZ',
      body: null,
      quiz: {
        passPercent: 100,
        questions: [
          { prompt: 'Which type takes a type parameter?', choices: ['string', 'Array<T>', 'number'] },
          { prompt: 'What does "strict" turn on?', choices: ['Every strict check', 'Nothing'] },
        ],
      },
    });
    assert.doesNotMatch(JSON.stringify(res.body), /\[x\]|\[X\]/);
    const text = lectures.find((l: { type: string }) => l.type === 'TEXT');
    assert.equal(text.quiz, null, 'other lectures have no quiz');
  });

  it('the player shows the questions without the key', async () => {
    const page = await (await student.request(`${TS}/lectures/${quizId}`)).text();
    assert.match(page, /<legend>2\. What does (&quot;|&#34;)strict(&quot;|&#34;) turn on\?<\/legend>/);
    assert.doesNotMatch(page, /\[x\]|\[ \]|Answer both/);
  });
});
