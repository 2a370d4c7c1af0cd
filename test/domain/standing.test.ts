/** The one table of who may do what at a school (src/domain/school/standing.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ROLES } from '../../src/domain/school/roles.ts';
import {
  may,
  mayActFor,
  ROLE_GRANTS,
  ROLE_PERMISSIONS,
  reachOf,
  standingRoles,
} from '../../src/domain/school/standing.ts';

describe('standing: roles and what each may do', () => {
  it('says for every role what it may do (product.md §2)', () => {
    assert.deepEqual(Object.keys(ROLE_PERMISSIONS), [...ROLES]);
    const table = ROLES.map((r) => [
      r,
      mayActFor('operator', [r]),
      mayActFor('member', [r]),
      may([r], 'manage_owners'),
    ]);
    assert.deepEqual(table, [
      ['owner', true, true, true],
      ['admin', true, true, false],
      ['lecturer', false, true, false],
      ['student', false, true, false],
    ]);
  });

  it('says for every role what it may do with the admin resources, and how far it reaches (product.md §8)', () => {
    assert.deepEqual(Object.keys(ROLE_GRANTS), [...ROLES]);
    const scopes = ['courses:read', 'courses:write', 'curriculum:write', 'storage:write', 'coupons:read'];
    assert.deepEqual(
      ROLES.map((r) => [r, ...scopes.map((s) => reachOf([r], s) ?? '-')]),
      [
        ['owner', 'school', 'school', 'school', 'school', 'school'],
        ['admin', 'school', 'school', 'school', 'school', 'school'],
        ['lecturer', 'taught_courses', '-', 'taught_courses', 'taught_courses', '-'],
        ['student', '-', '-', '-', '-', '-'],
      ],
    );
    // The widest of a person's roles: an admin who also teaches reaches the whole school.
    assert.equal(reachOf(['admin', 'lecturer'], 'curriculum:write'), 'school');
    assert.equal(reachOf(['owner'], 'openid'), undefined);
  });

  it('gives roles only to an active membership, and ignores unknown role names', () => {
    assert.deepEqual(standingRoles({ roles: '["admin","student"]', status: 'active' }), ['admin', 'student']);
    assert.deepEqual(standingRoles({ roles: ['owner'], status: 'active' }), ['owner']);
    assert.deepEqual(standingRoles({ roles: '["admin"]', status: 'invited' }), []);
    assert.deepEqual(standingRoles({ roles: null, status: null }), []);
    assert.deepEqual(standingRoles(undefined), []);
    assert.equal(may(['superuser'], 'act_as_operator'), false);
    assert.equal(mayActFor('member', []), false);
  });
});
