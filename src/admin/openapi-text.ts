import { DOCS_CLIENT_ID } from '../oauth/clients/console-clients.ts';

/** The prose of `/openapi.json`: what a developer reads before the first call. */
export const OPENAPI_INTRO = (
  baseUrl: string,
) => `The admin API of a Lectern school, for its operators (owners and admins) and the tools they connect.

## Authentication
OAuth 2.1 authorization code flow with PKCE (S256). Discover the endpoints at \`${baseUrl}/.well-known/oauth-authorization-server\`, register a loopback client at \`/api/oauth/register\` (or use a vendor's client id), and ask for the scopes you need. To try the API from the reference at \`${baseUrl}/docs\`, press "Authorize": it signs an owner or admin in with the public client \`${DOCS_CLIENT_ID}\` (PKCE, no secret). Send \`Authorization: Bearer <access token>\`. The school is the one chosen at consent (\`org_id\`): every call reads and changes that school only, and another school's ids answer 404. Each operation needs exactly one scope, shown on it; \`x:write\` also grants \`x:read\`. A missing scope answers 403 \`insufficient_scope\` with a \`WWW-Authenticate\` header naming it, so you can step up.

## Conventions
- JSON in and out (\`Content-Type: application/json\`); field names are snake_case.
- Money is integer minor units (\`price_amount: 4900\` is 49.00) beside an ISO 4217 \`currency\`.
- Timestamps are ISO 8601 in UTC.
- Lists are cursor-paginated: \`?limit=\` (1–100, default 20; larger is a 422, never clamped) and \`?cursor=\` from the previous page's \`next_cursor\` (with the same filters; a cursor naming a row this list would not return, such as another school's or a deleted one, is a 400 \`invalid_cursor\`: start again from the first page). Responses are \`{ "data": [...], "next_cursor": "…" | null }\`.
- Errors are RFC 9457 \`application/problem+json\` with a stable \`code\`; validation errors (422 \`validation_failed\`) list each failing field in \`errors[]\`.
- \`Idempotency-Key\` on any POST: a retry with the same key and body replays the first success (header \`Idempotent-Replayed: true\`) instead of running twice; the same key with a different request is a 422 \`idempotency_key_reused\`.
- Single resources carry an \`ETag\`; send it as \`If-Match\` on PATCH to refuse lost updates (412 \`precondition_failed\`). \`If-None-Match\` on GET answers 304 when nothing changed.`;

/** One line per resource group (OpenAPI tag). */
export const GROUP_DESCRIPTIONS: Record<string, string> = {
  courses: 'Courses: title, slug, status, price and lecturers.',
  curriculum: 'Sections and lectures of a course, and their order.',
  students: 'Enrollments: who has access to which course, until when, and their progress.',
  members: 'People with a role at the school: invite, change roles, remove.',
  lecturers: 'Lecturer profiles shown on courses.',
  orders: 'Orders (read only): items, amounts, coupon and status.',
  coupons: 'Discount codes: percent or fixed, limits, expiry, applicable products.',
  subscriptions: 'Subscriptions to membership plans; report what the payment provider did; cancel.',
  membership_plans: 'Recurring or lifetime plans that include courses.',
  digital_products: 'Downloadable products sold on their own.',
  events: 'Live events and their registrations.',
  posts: 'Community and blog posts.',
  comments: 'Comments on lectures and posts (read only).',
  pages: 'Site pages built from content blocks.',
  forms: 'Forms and their submissions (read only).',
  school: 'School settings: name, locale, timezone, currency, contact, beta features.',
  appearance: 'Theme colours, font and logo.',
  analytics: 'Revenue, enrollments, active students and completion over a date range (read only).',
  storage: 'Upload files to the school’s file store and read them back.',
};
