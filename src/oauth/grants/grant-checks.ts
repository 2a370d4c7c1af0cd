import { betaFeatures } from '../../domain/school/schools.ts';
import { mayActFor, standingRoles } from '../../domain/school/standing.ts';
import { OAuthError } from '../../errors/oauth-error.ts';
import type { AppContext } from '../../http/context.ts';
import { preparedRead } from '../../store/prepared.ts';
import type { OAuthClient } from '../clients/clients.ts';
import type { Grant } from './grants.ts';

/** A grant that may yield tokens now, with the user's current roles at its school. */
export interface UsableGrant {
  readonly grant: Grant;
  readonly roles: string[];
}

/**
 * What consent relied on, as read with the grant: its school's beta features (null when the
 * school is gone) and the user's membership there (null when none). Reads joining
 * `schools as s` and `memberships as m` to a grant select these columns (tokens.ts, codes.ts).
 */
export const JOINED_STANDING_COLUMNS = [
  's.beta_features as s_beta_features',
  'm.roles as m_roles',
  'm.status as m_status',
] as const;

export interface GrantStanding {
  readonly s_beta_features: string | null;
  readonly m_roles: string | null;
  readonly m_status: string | null;
}

/** The standing of a row read with JOINED_STANDING_COLUMNS (tokens.ts, codes.ts). */
export function standingFromJoined(row: GrantStanding): GrantStanding {
  return { s_beta_features: row.s_beta_features, m_roles: row.m_roles, m_status: row.m_status };
}

const standingOf = preparedRead((db, arg) =>
  db
    .selectFrom('schools as s')
    .leftJoin('memberships as m', (j) => j.onRef('m.school_id', '=', 's.id').on('m.user_id', '=', arg(1)))
    .select(JOINED_STANDING_COLUMNS)
    .where('s.id', '=', arg(0)),
);

/**
 * Re-checks, whenever a grant yields tokens, what consent relied on: the grant is live, a
 * member app's school still has MCP connections on (spec §5.2), and the user still holds a role
 * that makes them eligible for the grant's audience at its school (product.md §2). One query,
 * or none when the caller read the standing with the grant (`known`).
 */
export async function assertGrantUsable(
  ctx: AppContext,
  client: OAuthClient,
  grant: Grant | undefined,
  known?: GrantStanding,
): Promise<UsableGrant> {
  if (!grant || grant.revokedAt) throw new OAuthError('invalid_grant', 'The grant has been revoked.');
  const row = known ?? (await standingOf(ctx.db, grant.schoolId, grant.userId))[0];
  const schoolFeatures = row?.s_beta_features;
  if (
    client.kind === 'member' &&
    (schoolFeatures == null || !betaFeatures({ beta_features: schoolFeatures }).includes('mcp_connections'))
  ) {
    throw new OAuthError(
      'unauthorized_client',
      'This school has turned off MCP connections, so its member apps cannot be used.',
    );
  }
  const roles = standingRoles(row && { roles: row.m_roles, status: row.m_status });
  if (!mayActFor(grant.audience, roles)) {
    throw new OAuthError(
      'invalid_grant',
      'The user no longer has the role at this school that the grant needs.',
    );
  }
  return { grant, roles };
}
