/**
 * The invitation tools of the MCP operator surface: derived from the admin catalogue,
 * listed for an operator token with the members scopes, and answering like the REST API (the
 * one-time link in the tool result when no SMTP is configured).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addRoles } from '../../src/domain/school/memberships.ts';
import { createUser, findUserByEmail } from '../../src/domain/school/users.ts';
import { issueTestToken } from '../support/tokens.ts';
import { ownerOperatorToken, type Seeded, seedSchool } from '../support/world-mcp.ts';
import { connectClient, type LiveApp, startLiveApp } from './harness.ts';

describe('MCP operator tools: invitations', () => {
  let live: LiveApp;
  let seeded: Seeded;
  before(async () => {
    live = await startLiveApp();
    seeded = await seedSchool(live.t);
  });
  after(() => live.close());

  const tokenFor = (scopes: string[]) => ownerOperatorToken(live.t, seeded, scopes);

  it('lists the invitation tools for members:write and invites, resends and revokes through them', async () => {
    const { client } = await connectClient(live, { token: await tokenFor(['members:write']) });
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const name of [
      'members_invite',
      'members_list_invitations',
      'members_get_invitation',
      'members_resend_invitation',
      'members_revoke_invitation',
    ]) {
      assert.ok(names.includes(name), `${name} is listed`);
    }
    const created = await client.callTool({
      name: 'members_invite',
      arguments: { email: 'mcp-lecturer@example.com', roles: ['lecturer'] },
    });
    assert.equal(created.isError, undefined, JSON.stringify(created));
    const invitation = created.structuredContent as Record<string, string>;
    assert.equal(invitation.status, 'pending');
    assert.equal(invitation.delivery, 'link');
    assert.match(invitation.link, new RegExp(`^${live.baseUrl}/invitations/[A-Za-z0-9_-]{43}$`));
    assert.equal(await findUserByEmail(live.t.runtime.db, 'mcp-lecturer@example.com'), undefined);
    const list = await client.callTool({
      name: 'members_list_invitations',
      arguments: { status: 'pending' },
    });
    assert.deepEqual(
      (list.structuredContent as { data: Array<{ id: string }> }).data.map((i) => i.id),
      [invitation.id],
    );
    const resent = await client.callTool({
      name: 'members_resend_invitation',
      arguments: { invitation_id: invitation.id },
    });
    assert.notEqual((resent.structuredContent as Record<string, string>).link, invitation.link);
    const revoked = await client.callTool({
      name: 'members_revoke_invitation',
      arguments: { invitation_id: invitation.id },
    });
    assert.equal((revoked.structuredContent as Record<string, string>).status, 'revoked');
    await client.close();
  });

  it('another school’s operator gets not_found for an invitation of this school, and an empty list', async () => {
    const { client } = await connectClient(live, { token: await tokenFor(['members:write']) });
    const created = await client.callTool({
      name: 'members_invite',
      arguments: { email: 'mcp-private@example.com', roles: ['student'] },
    });
    const id = (created.structuredContent as Record<string, string>).id;
    await client.close();
    const outsider = await createUser(live.t.runtime.db, {
      email: 'boss@other.test',
      name: 'B',
      passwordHash: null,
    });
    await addRoles(live.t.runtime.db, seeded.otherSchoolId, outsider.id, ['owner']);
    const { token } = await issueTestToken(live.t, {
      userId: outsider.id,
      schoolId: seeded.otherSchoolId,
      audience: 'operator',
      scopes: ['members:write'],
    });
    const other = (await connectClient(live, { token })).client;
    for (const name of ['members_get_invitation', 'members_resend_invitation', 'members_revoke_invitation']) {
      const res = await other.callTool({ name, arguments: { invitation_id: id } });
      assert.equal(res.isError, true, name);
      assert.match(JSON.stringify(res.content), /not_found|No such invitation/, name);
    }
    const list = await other.callTool({ name: 'members_list_invitations', arguments: {} });
    assert.deepEqual((list.structuredContent as { data: unknown[] }).data, []);
    await other.close();
  });

  it('members:read lists invitations but does not list the tools that change them', async () => {
    const { client } = await connectClient(live, { token: await tokenFor(['members:read']) });
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('members_list_invitations'));
    assert.ok(!names.includes('members_invite'));
    assert.ok(!names.includes('members_revoke_invitation'));
    await client.close();
  });
});
