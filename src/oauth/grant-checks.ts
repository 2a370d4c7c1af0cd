import { isMember, isOperator, parseRoles } from '../domain/school/roles.ts';
import { betaFeatures } from '../domain/school/schools.ts';
import { OAuthError } from '../errors/oauth-error.ts';
import type { AppContext } from '../http/context.ts';
import type { OAuthClient } from './clients.ts';
import type { Grant } from './grants.ts';

/** A grant that may yield tokens now, with the user's current roles at its school. */
export interface UsableGrant {
  readonly grant: Grant;
  readonly roles: string[];
}

/**
 * Re-checks, whenever a grant yields tokens, what consent relied on: the grant is live, a
 * member app's school still has MCP connections on (spec §5.2), and the user still holds a role
 * that makes them eligible for the grant's audience at its school (product.md §2). One query.
 */
export async function assertGrantUsable(
  ctx: AppContext,
  client: OAuthClient,
  grant: Grant | undefined,
): Promise<UsableGrant> {
  if (!grant || grant.revokedAt) throw new OAuthError('invalid_grant', 'The grant has been revoked.');
  const row = await ctx.db
    .selectFrom('schools as s')
    .leftJoin('memberships as m', (j) =>
      j.onRef('m.school_id', '=', 's.id').on('m.user_id', '=', grant.userId),
    )
    .select(['s.beta_features', 'm.roles', 'm.status'])
    .where('s.id', '=', grant.schoolId)
    .executeTakeFirst();
  if (client.kind === 'member' && (!row || !betaFeatures(row).includes('mcp_connections'))) {
    throw new OAuthError(
      'unauthorized_client',
      'This school has turned off MCP connections, so its member apps cannot be used.',
    );
  }
  const roles = row?.status === 'active' && row.roles ? parseRoles(row.roles) : [];
  const eligible = grant.audience === 'member' ? isMember(roles) : isOperator(roles);
  if (!eligible) {
    throw new OAuthError(
      'invalid_grant',
      'The user no longer has the role at this school that the grant needs.',
    );
  }
  return { grant, roles };
}
