import { findMembership } from '../domain/memberships.ts';
import { isMember, isOperator } from '../domain/roles.ts';
import { OAuthError } from '../errors/oauth-error.ts';
import type { AppContext } from '../http/context.ts';
import { requireMemberAppsEnabled } from './authorize-request.ts';
import type { OAuthClient } from './clients.ts';
import type { Grant } from './grants.ts';

/**
 * Re-checks, whenever a grant yields tokens, what consent relied on: the grant is live, a
 * member app's school still has MCP connections on, and the user still holds a role that
 * makes them eligible for the grant's audience at its school (product.md §2).
 */
export async function assertGrantUsable(
  ctx: AppContext,
  client: OAuthClient,
  grant: Grant | undefined,
): Promise<Grant> {
  if (!grant || grant.revokedAt) throw new OAuthError('invalid_grant', 'The grant has been revoked.');
  if (client.kind === 'member') await requireMemberAppsEnabled(ctx, client);
  const membership = await findMembership(ctx.db, grant.schoolId, grant.userId);
  const roles = membership?.status === 'active' ? membership.roles : [];
  const eligible = grant.audience === 'member' ? isMember(roles) : isOperator(roles);
  if (!eligible) {
    throw new OAuthError(
      'invalid_grant',
      'The user no longer has the role at this school that the grant needs.',
    );
  }
  return grant;
}
