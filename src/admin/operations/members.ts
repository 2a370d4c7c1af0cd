import { z } from 'zod';
import { mapPage } from '../../domain/kernel/pagination.ts';
import { getMember, listMembers, type Member, MemberFields } from '../../domain/school/members-admin.ts';
import { ROLES } from '../../domain/school/roles.ts';
import { defineOperation } from '../define-operation.ts';
import { actionScope, changeRoles, remove } from '../member-actions.ts';
import { bodyOf, Id, named, PageQuery, pageOf, SearchQuery, Timestamp, toSnake } from '../schemas.ts';
import { invitationOperations, inviteOperation } from './invitations.ts';

const MemberSchema = named(
  'Member',
  z.object({
    id: Id.describe('The membership id.'),
    user_id: Id,
    email: z.string(),
    name: z.string(),
    roles: z.array(z.enum(ROLES)),
    status: z.enum(['active', 'invited']),
    invited_by_user_id: Id.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  'A person with roles at the school.',
);
const present = (m: Member) => toSnake(m);
const ById = z.strictObject({ member_id: Id });
const example = {
  id: 'mem_01jf3k6m2v8w9x0y1z2a3b4c5d',
  user_id: 'usr_01jf3k6m2v8w9x0y1z2a3b4c5d',
  email: 'ada@example.com',
  name: 'Ada',
  roles: ['admin'],
  status: 'active',
  invited_by_user_id: 'usr_01jf3k6m2v8w9x0y1z2a3b4c5e',
  created_at: '2026-03-01T09:00:00.000Z',
  updated_at: '2026-03-01T09:00:00.000Z',
};

const get = defineOperation({
  name: 'members.get',
  summary: 'Get a member',
  scope: 'members:read',
  method: 'GET',
  path: '/api/v1/members/{member_id}',
  input: { params: ById },
  output: MemberSchema,
  etag: true,
  examples: { response: example },
  handler: async (ctx, { params }) => present(await getMember(ctx.db, ctx.schoolId, params.member_id)),
});

/** The member operations: list, invite (and the invitations), change roles, remove (never the last owner). */
export const memberOperations = [
  defineOperation({
    name: 'members.list',
    summary: 'List members',
    description:
      'Memberships oldest first; filter by `role`, `status` or a `search` on email or name. People invited but not yet joined are invitations (`GET /api/v1/invitations`), not members; `invited` is only found on memberships made before invitations existed.',
    scope: 'members:read',
    method: 'GET',
    path: '/api/v1/members',
    input: {
      query: z.strictObject({
        ...PageQuery,
        role: z.enum(ROLES).optional(),
        status: z.enum(['active', 'invited']).optional(),
        search: SearchQuery,
      }),
    },
    output: pageOf(MemberSchema),
    handler: async (ctx, { query }) => {
      const page = await listMembers(
        ctx.db,
        ctx.schoolId,
        { role: query.role, status: query.status, search: query.search },
        query,
      );
      return mapPage(page, present);
    },
  }),
  get,
  // The invitation reads first: a read's example (without a link) is the one lists reuse.
  ...invitationOperations,
  inviteOperation,
  defineOperation({
    name: 'members.update',
    summary: 'Change a member’s roles',
    description:
      '`roles` replaces the list. Only owners may grant or change the owner role (403 `owner_required`); taking `owner` from the last active owner is a 409 `last_owner`.',
    scope: 'members:write',
    method: 'PATCH',
    path: '/api/v1/members/{member_id}',
    input: { params: ById, body: bodyOf(MemberFields) },
    output: MemberSchema,
    etag: true,
    current: get.handler,
    examples: { request: { roles: ['admin', 'lecturer'] } },
    handler: async (ctx, { params, body }) =>
      present(await changeRoles(actionScope(ctx), params.member_id, body.roles)),
  }),
  defineOperation({
    name: 'members.remove',
    summary: 'Remove a member',
    description:
      'Their tokens for this school stop working at once. The last active owner cannot be removed (409 `last_owner`).',
    scope: 'members:write',
    method: 'DELETE',
    path: '/api/v1/members/{member_id}',
    input: { params: ById },
    handler: async (ctx, { params }) => remove(actionScope(ctx), params.member_id),
  }),
];
