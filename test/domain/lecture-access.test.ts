/**
 * The one rule of who opens a course's lectures (domain/learning/lecture-access.ts), as a table:
 * every surface (the learning area, its files, the site's previews, the Account API, the member
 * tools) words these answers and nothing else.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type AccessFacts, decideLectureAccess } from '../../src/domain/learning/lecture-access.ts';

const published = { status: 'published' as const };
const draft = { status: 'draft' as const };
const paid = { isFreePreview: false };
const preview = { isFreePreview: true };
const member = { member: true };

describe('decideLectureAccess', () => {
  const cases: Array<[string, AccessFacts, ReturnType<typeof decideLectureAccess>]> = [
    [
      'an anonymous visitor, a free preview',
      { course: published, lecture: preview, staff: false },
      { ok: true, as: 'preview' },
    ],
    [
      'an anonymous visitor, a paid lecture',
      { course: published, lecture: paid, staff: false },
      { ok: false, reason: 'sign_in' },
    ],
    [
      'an anonymous visitor, a draft preview',
      { course: draft, lecture: preview, staff: false },
      { ok: false, reason: 'sign_in' },
    ],
    [
      'a non-member, a paid lecture',
      { course: published, lecture: paid, person: { member: false }, staff: false },
      { ok: false, reason: 'not_found' },
    ],
    [
      'a non-member, a free preview',
      { course: published, lecture: preview, person: { member: false }, staff: false },
      { ok: true, as: 'preview' },
    ],
    [
      'a student with access',
      { course: draft, lecture: paid, person: member, enrollment: { active: true }, staff: false },
      { ok: true, as: 'enrolled' },
    ],
    [
      'a student whose access ended',
      { course: published, lecture: paid, person: member, enrollment: { active: false }, staff: false },
      { ok: false, reason: 'access_expired' },
    ],
    [
      'a student whose access ended, a free preview',
      { course: published, lecture: preview, person: member, enrollment: { active: false }, staff: false },
      { ok: true, as: 'preview' },
    ],
    [
      'a student whose access ended, the outline',
      { course: published, person: member, enrollment: { active: false }, staff: false },
      { ok: true, as: 'enrolled' },
    ],
    [
      'staff, a draft',
      { course: draft, lecture: paid, person: member, staff: true },
      { ok: true, as: 'staff' },
    ],
    [
      'a member not enrolled, published',
      { course: published, lecture: paid, person: member, staff: false },
      { ok: false, reason: 'not_enrolled' },
    ],
    [
      'a member not enrolled, a draft',
      { course: draft, lecture: paid, person: member, staff: false },
      { ok: false, reason: 'not_found' },
    ],
  ];
  for (const [name, facts, expected] of cases) {
    it(name, () => assert.deepEqual(decideLectureAccess(facts), expected));
  }
});
