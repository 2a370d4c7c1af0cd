import { z } from 'zod';
import { Text } from '../../domain/kernel/fields.ts';
import { mapPage } from '../../domain/kernel/pagination.ts';
import {
  changeMemberRoles,
  getMember,
  inviteMember,
  listMembers,
  type Member,
  removeMember,
} from '../../domain/school/members-admin.ts';
import { ROLES } from '../../domain/school/roles.ts';
import { problems } from '../../errors/problem-error.ts';
import { defineOperation, type OperationContext } from '../define-operation.ts';
import { Email, Id, named, PageQuery, pageOf, SearchQuery, Timestamp, toSnake } from '../schemas.ts';

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
const Roles = z.array(z.enum(ROLES)).min(1).max(4);
const ById = z.strictObject({ member_id: Id });
const example = {
  id: 'mem_01jf3k6m2v8w9x0y1z2a3b4c5d',
  user_id: 'usr_01jf3k6m2v8w9x0y1z2a3b4c5d',
  email: 'ada@example.com',
  name: 'Ada',
  roles: ['admin'],
  status: 'invited',
  invited_by_user_id: 'usr_01jf3k6m2v8w9x0y1z2a3b4c5e',
  created_at: '2026-03-01T09:00:00.000Z',
  updated_at: '2026-03-01T09:00:00.000Z',
};

// Only an owner may make someone an owner or change an owner's roles: an admin must not be
// able to promote themselves, or demote the people above them.
function requireOwnerFor(ctx: OperationContext, involvesOwner: boolean): void {
  if (involvesOwner && !ctx.principal.roles.includes('owner')) {
    throw problems.forbidden('Only an owner can grant, change or remove the owner role.', 'owner_required');
  }
}

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

/** The member operations: list, invite, change roles, remove (never the last owner). */
export const memberOperations = [
  defineOperation({
    name: 'members.list',
    summary: 'List members',
    description: 'Memberships oldest first; filter by `role`, `status` or a `search` on email or name.',
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
  defineOperation({
    name: 'members.invite',
    summary: 'Invite a person',
    description:
      'Adds the person with the given roles. An unknown email gets an account without a password (status `invited` until they sign in). Someone already at the school is a 409 `already_member`.',
    scope: 'members:write',
    method: 'POST',
    path: '/api/v1/members',
    input: {
      body: z.strictObject({
        email: Email,
        name: Text(120).optional(),
        roles: Roles,
      }),
    },
    output: MemberSchema,
    status: 201,
    etag: true,
    examples: { request: { email: 'ada@example.com', name: 'Ada', roles: ['admin'] }, response: example },
    handler: async (ctx, { body }) => {
      requireOwnerFor(ctx, body.roles.includes('owner'));
      return present(
        await inviteMember(ctx.db, ctx.schoolId, {
          email: body.email,
          name: body.name,
          roles: body.roles,
          invitedByUserId: ctx.principal.userId,
        }),
      );
    },
  }),
  defineOperation({
    name: 'members.update',
    summary: 'Change a member’s roles',
    description:
      '`roles` replaces the list. Only owners may grant or change the owner role (403 `owner_required`); taking `owner` from the last active owner is a 409 `last_owner`.',
    scope: 'members:write',
    method: 'PATCH',
    path: '/api/v1/members/{member_id}',
    input: { params: ById, body: z.strictObject({ roles: Roles }) },
    output: MemberSchema,
    etag: true,
    current: get.handler,
    examples: { request: { roles: ['admin', 'lecturer'] } },
    handler: async (ctx, { params, body }) => {
      const current = await getMember(ctx.db, ctx.schoolId, params.member_id);
      requireOwnerFor(ctx, current.roles.includes('owner') || body.roles.includes('owner'));
      return present(await changeMemberRoles(ctx.db, ctx.schoolId, params.member_id, body.roles));
    },
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
    handler: async (ctx, { params }) => {
      requireOwnerFor(ctx, (await getMember(ctx.db, ctx.schoolId, params.member_id)).roles.includes('owner'));
      await removeMember(ctx.db, ctx.schoolId, params.member_id);
    },
  }),
];
