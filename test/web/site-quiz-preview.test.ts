/**
 * A quiz lecture marked free preview, on the school's public site over HTTP: the preview shows
 * its questions and choices, never which choice is right (the body's `[x]` marks) nor anything
 * else its body says, with a note that enrolling answers it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLecture, createSection } from '../../src/domain/catalog/curriculum.ts';
import { quizToMarkdown } from '../../src/domain/catalog/quiz.ts';
import { DEMO } from '../../src/domain/demo/demo-constants.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { createWorld, type World } from '../support/world.ts';

const HTML = { accept: 'text/html' };
const COURSE = `/schools/demo/courses/${DEMO.courses.sql}`;

describe('the free preview of a quiz', () => {
  let t: TestApp;
  let w: World;

  before(async () => {
    t = await createTestApp();
    w = await createWorld(t);
  });
  after(() => t.close());

  async function quizPreview(body: string | undefined): Promise<string> {
    const section = await createSection(t.runtime.db, w.demo.schoolId, w.demo.courseIds.sql, {
      title: 'Check yourself',
    });
    const lecture = await createLecture(t.runtime.db, w.demo.schoolId, section.id, {
      title: 'SQL basics quiz',
      type: 'quiz',
      durationSeconds: 300,
      isFreePreview: true,
      body,
    });
    const res = await t.request(`${COURSE}/preview/${lecture.id}`, { headers: HTML });
    const text = await res.text();
    assert.equal(res.status, 200, text.slice(0, 2000));
    return text;
  }

  it('shows the questions and choices, not the answer key', async () => {
    const body = `${quizToMarkdown([
      { prompt: 'Which clause filters rows?', choices: ['ORDER BY', 'WHERE', 'LIMIT'], answer: 1 },
      { prompt: 'Which keyword removes duplicates?', choices: ['DISTINCT', 'UNIQUE ROWS'], answer: 0 },
    ])}\n\nHint: the answer to the first one is WHERE.`;
    assert.ok(body.includes('- [x] WHERE'), 'the stored body marks the right answer');
    const text = await quizPreview(body);
    assert.ok(text.includes('<h1>SQL basics quiz</h1>'));
    assert.ok(
      text.includes(
        '<ol class="quiz"><li><p>Which clause filters rows?</p><ul><li>ORDER BY</li><li>WHERE</li><li>LIMIT</li></ul></li><li><p>Which keyword removes duplicates?</p><ul><li>DISTINCT</li><li>UNIQUE ROWS</li></ul></li></ol>',
      ),
    );
    assert.ok(text.includes('<p class="muted">Enrol to answer this quiz.</p>'));
    for (const leak of [
      '[x]',
      '[X]',
      '[ ]',
      '- [x] WHERE',
      'checked',
      'Hint: the answer',
      'the answer to the first',
    ]) {
      assert.ok(!text.includes(leak), `no ${leak}`);
    }
    assert.ok(!text.includes('This lecture’s material is for enrolled students.'));
  });

  it('a quiz without questions says its material is for enrolled students', async () => {
    const text = await quizPreview('Answer: [x] everything');
    assert.ok(text.includes('<p>This lecture’s material is for enrolled students.</p>'));
    assert.ok(!text.includes('[x]'));
    assert.ok(!text.includes('Enrol to answer this quiz.'));
  });
});
