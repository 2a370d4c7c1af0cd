/**
 * One validation source: each entity's field rules are one zod object beside its domain module.
 * The domain parses its input with it and the admin API's request bodies are derived from it
 * (the same rules under snake_case keys), and each surface words a failure its own way: the
 * admin API answers zod's messages in an RFC 9457 problem (RFC 9457 §3), the domain (and so
 * GraphQL and the MCP member tools) one sentence per field stating the whole rule.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { adminOperations } from '../../src/admin/catalogue.ts';
import { snakeKey } from '../../src/admin/schemas.ts';
import { CourseCreate, CoursePatch, createCourse } from '../../src/domain/catalog/courses.ts';
import {
  LectureCreate,
  LecturePatch,
  SectionCreate,
  SectionPatch,
} from '../../src/domain/catalog/curriculum-rows.ts';
import { LecturerCreate, LecturerPatch } from '../../src/domain/catalog/lecturers.ts';
import { CouponCreate, CouponPatch } from '../../src/domain/commerce/coupons.ts';
import { DigitalProductCreate, DigitalProductPatch } from '../../src/domain/commerce/digital-products.ts';
import { MembershipPlanCreate, MembershipPlanPatch } from '../../src/domain/commerce/membership-plans.ts';
import { RecordOrderFields } from '../../src/domain/commerce/orders.ts';
import { EventCreate, EventPatch } from '../../src/domain/community/events.ts';
import { SitePageCreate, SitePagePatch } from '../../src/domain/community/pages.ts';
import { PostCreate, PostPatch } from '../../src/domain/community/posts.ts';
import { Color, Currency, Email, HttpUrl, Instant, Slug, Text } from '../../src/domain/kernel/fields.ts';
import { domainMessage, parseFields } from '../../src/domain/kernel/parse.ts';
import { AppearanceFields } from '../../src/domain/school/appearance.ts';
import { SchoolSettingsFields } from '../../src/domain/school/school-settings.ts';
import { problemOf } from '../domain/problem-of.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { ENGINE } from '../support/database.ts';
import { type SchoolFixture, schoolFixture } from '../support/world.ts';
import { api } from './api.ts';

/** Each write operation's body and the domain fields it is derived from. */
const DERIVED: Array<[string, z.ZodObject]> = [
  ['courses.create', CourseCreate],
  ['courses.update', CoursePatch],
  ['curriculum.create_section', SectionCreate],
  ['curriculum.update_section', SectionPatch],
  ['curriculum.create_lecture', LectureCreate],
  ['curriculum.update_lecture', LecturePatch],
  ['lecturers.create', LecturerCreate],
  ['lecturers.update', LecturerPatch],
  ['coupons.create', CouponCreate],
  ['coupons.update', CouponPatch],
  ['digital_products.create', DigitalProductCreate],
  ['digital_products.update', DigitalProductPatch],
  ['membership_plans.create', MembershipPlanCreate],
  ['membership_plans.update', MembershipPlanPatch],
  ['events.create', EventCreate],
  ['events.update', EventPatch],
  ['pages.create', SitePageCreate],
  ['pages.update', SitePagePatch],
  ['posts.create', PostCreate],
  ['posts.update', PostPatch],
  ['school.update', SchoolSettingsFields],
  ['appearance.update', AppearanceFields],
];

describe('one validation source: entity fields in the domain, bodies derived', () => {
  it('every write body is its domain fields under snake_case keys, with the same optionality', () => {
    for (const [name, fields] of DERIVED) {
      const op = adminOperations.find((o) => o.name === name);
      assert.ok(op, name);
      const body = op.input.body as z.ZodObject;
      const expected = Object.entries(fields.shape as Record<string, z.ZodType>).map(([k, rule]) => [
        snakeKey(k),
        rule instanceof z.ZodOptional,
      ]);
      const actual = Object.entries(body.shape as Record<string, z.ZodType>).map(([k, rule]) => [
        k,
        rule instanceof z.ZodOptional,
      ]);
      assert.deepEqual(actual, expected, name);
      // Unknown keys are refused on the wire (the admin API's 422 names them).
      assert.equal(body.safeParse({ not_a_field: 1 }).success, false, name);
    }
  });

  it('the domain states each rule in words, from the rule itself', () => {
    const cases: Array<[z.ZodType, string]> = [
      [Slug, 'must be lower-case letters, digits and single hyphens (≤ 100)'],
      [Currency, 'must be an ISO 4217 currency code, e.g. USD'],
      [HttpUrl.nullable(), 'must be an http or https URL'],
      [Email, 'must be an email address'],
      [Color, 'must be a hex colour like #1f4b99'],
      [Instant.optional(), 'must be an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z'],
      [Text(120), 'must be a non-empty string of at most 120 characters'],
      [z.string().max(500).nullable(), 'must be a string of at most 500 characters'],
      [z.number().int().min(1).max(100).nullable(), 'must be an integer from 1 to 100'],
      [z.enum(['video', 'text']), 'must be one of video, text'],
      [z.boolean().optional(), 'must be a boolean'],
      [
        Slug.describe('a copy made by describe keeps the wording'),
        'must be lower-case letters, digits and single hyphens (≤ 100)',
      ],
    ];
    for (const [rule, message] of cases) assert.equal(domainMessage(rule), message);
  });

  it('the domain parses each field on its own: shape order, nested paths, valid fields kept', () => {
    const { data, errors } = parseFields(RecordOrderFields, {
      currency: 'usd',
      items: [{ productType: 'course', productId: ' c1 ', title: '  Course  ', unitAmount: -1 }],
      createdAt: '2026-02-01',
      stray: 'dropped',
    });
    assert.deepEqual(errors, [
      { field: 'currency', message: 'must be an ISO 4217 currency code, e.g. USD' },
      { field: 'items.0.unitAmount', message: 'must be an integer from 0 to 100000000000' },
    ]);
    assert.deepEqual(data, { createdAt: '2026-02-01T00:00:00.000Z' });
    assert.deepEqual(parseFields(RecordOrderFields, { currency: 'EUR', items: [] }).errors, [
      { field: 'items', message: 'must not be empty' },
    ]);
  });
});

describe(`one schema, each surface's wording, on ${ENGINE}`, () => {
  let t: TestApp;
  let school: SchoolFixture;
  let call: ReturnType<typeof api>;
  before(async () => {
    t = await createTestApp();
    school = await schoolFixture(t);
    call = api(t, await school.token());
  });
  after(() => t.close());

  it('an empty course title: zod’s message over REST, the rule in words from the domain', async () => {
    const rest = await call('POST', '/api/v1/courses', { slug: 'empty-title', title: '   ' });
    assert.equal(rest.status, 422);
    assert.equal(rest.headers.get('content-type'), 'application/problem+json');
    assert.equal(rest.body.code, 'validation_failed');
    assert.deepEqual(rest.body.errors, [
      { field: 'body.title', message: 'Too small: expected string to have >=1 characters' },
    ]);
    const domain = await problemOf(createCourse(t.runtime.db, school.schoolId, { slug: 'x', title: '   ' }));
    assert.deepEqual(domain, {
      status: 422,
      code: 'validation_failed',
      errors: [{ field: 'title', message: 'must be a non-empty string of at most 200 characters' }],
    });
  });

  it('a slug of another shape is refused the same way on both, each in its words', async () => {
    const rest = await call('POST', '/api/v1/courses', { slug: 'Not A Slug', title: 'T' });
    assert.deepEqual(rest.body.errors, [
      { field: 'body.slug', message: 'must be lower-case letters, digits and single hyphens' },
    ]);
    const domain = await problemOf(
      createCourse(t.runtime.db, school.schoolId, { slug: 'Not A Slug', title: 'T' }),
    );
    assert.deepEqual(domain.errors, [
      { field: 'slug', message: 'must be lower-case letters, digits and single hyphens (≤ 100)' },
    ]);
  });
});
