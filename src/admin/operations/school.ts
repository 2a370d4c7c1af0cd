import { z } from 'zod';
import { declare } from '../../domain/kernel/field-meta.ts';
import {
  type Appearance,
  AppearanceFields,
  FONTS,
  getAppearance,
  updateAppearance,
} from '../../domain/school/appearance.ts';
import {
  getSchoolSettings,
  type SchoolSettings,
  SchoolSettingsFields,
} from '../../domain/school/school-settings.ts';
import { BETA_FEATURES } from '../../domain/school/schools.ts';
import type { OperationContext } from '../define-operation.ts';
import { defineOperation } from '../define-operation.ts';
import { actionScope } from '../member-actions.ts';
import { bodyOf, Currency, Id, named, Timestamp, toCamel, toSnake } from '../schemas.ts';
import { updateSettings } from '../school-actions.ts';

const SchoolSchema = named(
  'School',
  z.object({
    id: Id,
    name: z.string(),
    subdomain: z.string(),
    locale: z.string().describe('BCP 47 tag.'),
    timezone: declare(z.string(), { kind: 'time_zone' }).describe('IANA time zone.'),
    currency: Currency.describe('Default currency of new products.'),
    contact_email: z.string().nullable(),
    beta_features: z.array(z.enum(BETA_FEATURES)),
    signup_open: z.boolean().describe('Whether visitors may sign up at the school’s site.'),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  'The school’s settings.',
);

const AppearanceSchema = named(
  'Appearance',
  z.object({
    primary_color: z.string().describe('Hex colour, #rrggbb.'),
    accent_color: z.string(),
    font: z.enum(FONTS),
    logo_file_id: Id.nullable(),
    logo_url: declare(z.string(), { kind: 'url' })
      .nullable()
      .describe('Where the logo file is read (admin storage route).'),
    updated_at: Timestamp,
  }),
  'The school’s theme.',
);

const presentSchool = (s: SchoolSettings) => toSnake(s, []);
const presentAppearance = (ctx: OperationContext, a: Appearance) => ({
  ...toSnake(a, []),
  logo_url: a.logoFileId ? `${ctx.app.config.baseUrl}/api/v1/storage/files/${a.logoFileId}/content` : null,
});

const getSchool = defineOperation({
  name: 'school.get',
  summary: 'Get the school’s settings',
  scope: 'school:read',
  method: 'GET',
  path: '/api/v1/school',
  input: {},
  output: SchoolSchema,
  etag: true,
  examples: {
    response: {
      id: 'sch_01jf3k6m2v8w9x0y1z2a3b4c5d',
      name: 'Demo Academy',
      subdomain: 'demo',
      locale: 'en',
      timezone: 'Europe/Berlin',
      currency: 'EUR',
      contact_email: 'hello@demo.example',
      beta_features: ['mcp_connections'],
      signup_open: true,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-03-01T00:00:00.000Z',
    },
  },
  handler: async (ctx) => presentSchool(await getSchoolSettings(ctx.db, ctx.schoolId)),
});

const getTheme = defineOperation({
  name: 'appearance.get',
  summary: 'Get the theme',
  scope: 'appearance:read',
  method: 'GET',
  path: '/api/v1/appearance',
  input: {},
  output: AppearanceSchema,
  etag: true,
  examples: {
    response: {
      primary_color: '#1f4b99',
      accent_color: '#f2a93b',
      font: 'Inter',
      logo_file_id: 'fil_01jf3k6m2v8w9x0y1z2a3b4c5d',
      logo_url: 'https://lectern.example/api/v1/storage/files/fil_01jf3k6m2v8w9x0y1z2a3b4c5d/content',
      updated_at: '2026-03-01T09:00:00.000Z',
    },
  },
  handler: async (ctx) => presentAppearance(ctx, await getAppearance(ctx.db, ctx.schoolId)),
});

/** School settings and appearance operations. */
export const schoolOperations = [
  getSchool,
  defineOperation({
    name: 'school.update',
    summary: 'Update the school’s settings',
    description:
      'A subdomain in use by another school is a 409 `subdomain_taken`. `beta_features` replaces the whole list; each feature it sets is logged (`beta.toggled`), as when it is switched in the operator pages.',
    scope: 'school:write',
    method: 'PATCH',
    path: '/api/v1/school',
    input: {
      body: bodyOf(SchoolSettingsFields),
    },
    output: SchoolSchema,
    etag: true,
    current: getSchool.handler,
    examples: { request: { timezone: 'Europe/Berlin', beta_features: ['mcp_connections'] } },
    handler: async (ctx, { body }) => presentSchool(await updateSettings(actionScope(ctx), toCamel(body))),
  }),
  getTheme,
  defineOperation({
    name: 'appearance.update',
    summary: 'Update the theme',
    description: 'Upload the logo first (`storage.upload`), then set its id as `logo_file_id`.',
    scope: 'appearance:write',
    method: 'PATCH',
    path: '/api/v1/appearance',
    input: {
      body: bodyOf(AppearanceFields),
    },
    output: AppearanceSchema,
    etag: true,
    current: getTheme.handler,
    examples: { request: { primary_color: '#0b5fff', font: 'Inter' } },
    handler: async (ctx, { body }) =>
      presentAppearance(ctx, await updateAppearance(ctx.db, ctx.schoolId, toCamel(body))),
  }),
];
