/**
 * Invitations under the `members` scopes: list, get, create (`POST /api/v1/members`,
 * kept from before), resend and revoke. The link is in an answer only when no SMTP is configured,
 * only on create and resend, and never in a stored Idempotency-Key replay (`once`).
 */
import { z } from 'zod';
import { mapPage } from '../../domain/kernel/pagination.ts';
import {
  getInvitation,
  INVITATION_STATUSES,
  type Invitation,
  InvitationFields,
  listInvitations,
} from '../../domain/school/invitations.ts';
import { ROLES } from '../../domain/school/roles.ts';
import { defineOperation } from '../define-operation.ts';
import { actionScope, type Delivery, invite, resend, revoke } from '../member-actions.ts';
import { bodyOf, Id, named, PageQuery, pageOf, SearchQuery, Timestamp, toSnake } from '../schemas.ts';

const InvitationSchema = named(
  'Invitation',
  z.object({
    id: Id,
    email: z.string(),
    roles: z.array(z.enum(ROLES)),
    status: z.enum(INVITATION_STATUSES),
    invited_by_user_id: Id.nullable(),
    course_ids: z.array(Id).describe('Courses the person is enrolled in (lifetime access) when they accept.'),
    expires_at: Timestamp,
    accepted_at: Timestamp.nullable(),
    revoked_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
    delivery: z
      .enum(['email', 'link'])
      .optional()
      .describe('Create and resend only: `email` when it was mailed (SMTP_URL set), else `link`.'),
    link: z
      .url()
      .optional()
      .describe(
        'Create and resend only, when no SMTP is configured: the one-time link to hand to the person. Shown once: never stored, never logged, absent from an Idempotency-Key replay; resend for a new one.',
      ),
  }),
  'A person invited to the school with roles; they become a member when they accept.',
);

const present = (i: Invitation) => toSnake(i);
const sent = (r: { invitation: Invitation } & Delivery) => ({
  ...present(r.invitation),
  delivery: r.delivery,
  ...(r.delivery === 'link' ? { link: r.link } : {}),
});
const ById = z.strictObject({ invitation_id: Id });
const example = {
  id: 'inv_01jf3k6m2v8w9x0y1z2a3b4c5d',
  email: 'ada@example.com',
  roles: ['lecturer'],
  status: 'pending',
  invited_by_user_id: 'usr_01jf3k6m2v8w9x0y1z2a3b4c5e',
  course_ids: [],
  expires_at: '2026-03-08T09:00:00.000Z',
  accepted_at: null,
  revoked_at: null,
  created_at: '2026-03-01T09:00:00.000Z',
  updated_at: '2026-03-01T09:00:00.000Z',
};

const sentExample = {
  ...example,
  delivery: 'link',
  link: 'https://learn.example.com/invitations/Ap9GMNiwQCYAIIonYgwlXKsRZ13np7VDn9xaJ54Ay4A',
};

/** `members.invite` (POST /api/v1/members), its path and tool name kept from before invitations. */
export const inviteOperation = defineOperation({
  name: 'members.invite',
  summary: 'Invite a person',
  description:
    'Creates a single-use invitation valid for 7 days; the person becomes a member with `roles` only when they open the link and accept (a new person sets a name and password, an existing account signs in first), and is enrolled in `course_ids` (lifetime access). It no longer creates a user or a membership (it did before invitations existed), and answers with the invitation: the answer is the same whether or not the email has a Lectern account. With SMTP configured the link is emailed (`delivery: "email"`); otherwise it is returned once as `link`. Someone already at the school is a 409 `already_member`, a pending invitation a 409 `invitation_pending`; only owners invite owners (403 `owner_required`); a refused email is a 502 `mail_failed`.',
  scope: 'members:write',
  method: 'POST',
  path: '/api/v1/members',
  input: {
    body: bodyOf(InvitationFields),
  },
  output: InvitationSchema,
  status: 201,
  once: ['link'],
  examples: {
    request: { email: 'ada@example.com', roles: ['lecturer'] },
    response: sentExample,
  },
  handler: async (ctx, { body }) =>
    sent(
      await invite(actionScope(ctx), { email: body.email, roles: body.roles, courseIds: body.course_ids }),
    ),
});

/** The invitation operations beside `members.invite`. */
export const invitationOperations = [
  defineOperation({
    name: 'members.list_invitations',
    summary: 'List invitations',
    description:
      'Oldest first; filter by `status` (pending, accepted, expired, revoked) or a `search` on email.',
    scope: 'members:read',
    method: 'GET',
    path: '/api/v1/invitations',
    input: {
      query: z.strictObject({
        ...PageQuery,
        status: z.enum(INVITATION_STATUSES).optional(),
        search: SearchQuery,
      }),
    },
    output: pageOf(InvitationSchema),
    handler: async (ctx, { query }) =>
      mapPage(
        await listInvitations(ctx.db, ctx.schoolId, { status: query.status, search: query.search }, query),
        present,
      ),
  }),
  defineOperation({
    name: 'members.get_invitation',
    summary: 'Get an invitation',
    scope: 'members:read',
    method: 'GET',
    path: '/api/v1/invitations/{invitation_id}',
    input: { params: ById },
    output: InvitationSchema,
    examples: { response: example },
    handler: async (ctx, { params }) =>
      present(await getInvitation(ctx.db, ctx.schoolId, params.invitation_id)),
  }),
  defineOperation({
    name: 'members.resend_invitation',
    summary: 'Resend an invitation',
    description:
      'A new link valid for 7 more days, delivered like the first (`delivery`, `link`); the old link stops working. A pending or expired invitation only: an accepted or revoked one is a 409 `invitation_closed`.',
    scope: 'members:write',
    method: 'POST',
    path: '/api/v1/invitations/{invitation_id}/resend',
    input: { params: ById },
    output: InvitationSchema,
    once: ['link'],
    examples: { response: sentExample },
    handler: async (ctx, { params }) => sent(await resend(actionScope(ctx), params.invitation_id)),
  }),
  defineOperation({
    name: 'members.revoke_invitation',
    summary: 'Revoke an invitation',
    description:
      'Its link stops working; revoking again answers the same. An accepted invitation is a 409 `invitation_closed` (remove the member instead).',
    scope: 'members:write',
    method: 'POST',
    path: '/api/v1/invitations/{invitation_id}/revoke',
    input: { params: ById },
    output: InvitationSchema,
    annotations: { destructive: true, idempotent: true },
    handler: async (ctx, { params }) => present(await revoke(actionScope(ctx), params.invitation_id)),
  }),
];
