/**
 * Member apps (spec §5.2 item 5, product.md §3): OAuth clients an operator creates for one
 * school in the admin area. Every function here is scoped by school id, so an operator of one
 * school can never read or change another school's apps.
 */
import { newId } from '../../crypto/ids.ts';
import { randomToken, sha256 } from '../../crypto/tokens.ts';
import { recordEvent } from '../../events/outbox.ts';
import { type Db, inTransaction, type Tx } from '../../store/database.ts';
import { isoIn, isoNow } from '../../store/time.ts';
import { revokeGrant } from '../grants/grants.ts';
import { ALL_SCOPES, formatScopes, parseScopes, scopeAudience } from '../scopes.ts';
import type { OAuthClientsTable } from '../tables.ts';
import { isHttpsRedirectUri, isLoopbackRedirectUri, MAX_REDIRECT_URI_LENGTH } from './redirect-uris.ts';

/**
 * Scopes an operator may give a member app: the member-audience scopes and the identity ones.
 * `offline_access` is left out: it has no effect, refresh tokens are always issued (product.md §4).
 */
export const MEMBER_APP_SCOPES: readonly string[] = ALL_SCOPES.filter(
  (s) => scopeAudience(s) !== 'operator' && s !== 'offline_access',
);
const MAX_APP_NAME_LENGTH = 80;
export const MAX_REDIRECT_URIS = 10;
/** At most this many member apps per school: a bound on what one operator can create. */
export const MAX_APPS_PER_SCHOOL = 50;

type AuthMethod = 'none' | 'client_secret_post';

/** A member app as the admin area shows it. */
export interface MemberApp {
  readonly clientId: string;
  readonly schoolId: string;
  readonly name: string;
  readonly authMethod: AuthMethod;
  readonly redirectUris: string[];
  readonly scopes: string[];
  readonly createdByUserId: string | null;
  readonly secretRotatedAt: string | null;
  /** While the secret a rotation replaced still works: until when (ISO); else null. */
  readonly previousSecretValidUntil: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** What an operator submits to create or edit an app (edit ignores `authMethod`). */
export interface MemberAppInput {
  readonly name: string;
  readonly redirectUris: string[];
  readonly authMethod: AuthMethod;
  readonly scopes: string[];
}

/** Field-by-field validation messages, keyed by form field. */
export type MemberAppErrors = Partial<Record<'name' | 'redirect_uris' | 'auth_method' | 'scopes', string>>;

function toApp(row: OAuthClientsTable): MemberApp {
  return {
    clientId: row.id,
    schoolId: row.school_id ?? '',
    name: row.name,
    authMethod: row.token_endpoint_auth_method,
    redirectUris: JSON.parse(row.redirect_uris) as string[],
    scopes: parseScopes(row.allowed_scopes),
    createdByUserId: row.created_by_user_id,
    secretRotatedAt: row.secret_rotated_at,
    previousSecretValidUntil:
      row.previous_secret_hash && row.previous_secret_expires_at && row.previous_secret_expires_at > isoNow()
        ? row.previous_secret_expires_at
        : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * Checks an app's form: a name, 1–10 redirect URIs that are https (RFC 6749 §3.1.2) or loopback
 * http (RFC 8252 §7.3), without fragments, a known client type, and only member-app scopes.
 */
export function validateMemberAppInput(raw: {
  name: string;
  redirectUris: string;
  authMethod: string;
  scopes: readonly string[];
}): { ok: true; value: MemberAppInput } | { ok: false; errors: MemberAppErrors } {
  const errors: MemberAppErrors = {};
  const name = raw.name.trim();
  if (!name) errors.name = 'Enter a name people will recognise on the consent page.';
  else if (name.length > MAX_APP_NAME_LENGTH) errors.name = `Use at most ${MAX_APP_NAME_LENGTH} characters.`;
  else if (/[\p{Cc}]/u.test(name)) errors.name = 'The name cannot contain control characters.';

  const uris = [
    ...new Set(
      raw.redirectUris
        .split(/\r?\n/)
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  const bad = uris.find(
    (u) =>
      u.length > MAX_REDIRECT_URI_LENGTH ||
      u.includes('#') ||
      !(isHttpsRedirectUri(u) || isLoopbackRedirectUri(u)),
  );
  if (uris.length === 0) errors.redirect_uris = 'Enter at least one redirect URI.';
  else if (uris.length > MAX_REDIRECT_URIS) errors.redirect_uris = `Enter at most ${MAX_REDIRECT_URIS}.`;
  else if (bad !== undefined) {
    errors.redirect_uris = `${bad.slice(0, 200)} is not allowed: use https://…, or http://127.0.0.1, http://[::1] or http://localhost for apps on the user's computer, with no #fragment.`;
  }

  if (raw.authMethod !== 'none' && raw.authMethod !== 'client_secret_post') {
    errors.auth_method = 'Choose public or confidential.';
  }
  const unknown = raw.scopes.filter((s) => !MEMBER_APP_SCOPES.includes(s));
  const scopes = parseScopes(formatScopes(raw.scopes));
  if (unknown.length > 0) errors.scopes = `Member apps cannot have: ${unknown.join(' ').slice(0, 200)}.`;
  else if (scopes.length === 0) errors.scopes = 'Choose at least one scope.';

  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: { name, redirectUris: uris, authMethod: raw.authMethod as AuthMethod, scopes },
  };
}

const applicationType = (uris: readonly string[]) =>
  uris.every((u) => isLoopbackRedirectUri(u)) ? ('native' as const) : ('web' as const);

/** The school's member apps, newest first. */
export async function listMemberApps(db: Db | Tx, schoolId: string): Promise<MemberApp[]> {
  const rows = await db
    .selectFrom('oauth_clients')
    .selectAll()
    .where('kind', '=', 'member')
    .where('school_id', '=', schoolId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map(toApp);
}

/** One member app of the school, or undefined (another school's app is undefined too). */
export async function getMemberApp(
  db: Db | Tx,
  schoolId: string,
  clientId: string,
): Promise<MemberApp | undefined> {
  const row = await db
    .selectFrom('oauth_clients')
    .selectAll()
    .where('id', '=', clientId)
    .where('kind', '=', 'member')
    .where('school_id', '=', schoolId)
    .executeTakeFirst();
  return row ? toApp(row) : undefined;
}

/** Thrown when a school already has the maximum number of member apps. */
export class TooManyAppsError extends Error {
  override name = 'TooManyAppsError';
}

/**
 * Creates a member app. A confidential app gets a secret, returned here only: the store keeps
 * its SHA-256 (product.md §3).
 */
export async function createMemberApp(
  db: Db,
  input: MemberAppInput & { schoolId: string; createdByUserId: string },
): Promise<{ app: MemberApp; clientSecret?: string }> {
  const clientSecret = input.authMethod === 'client_secret_post' ? randomToken(32) : undefined;
  const now = isoNow();
  const id = newId('app');
  await inTransaction(db, async (tx) => {
    const count = await tx
      .selectFrom('oauth_clients')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('kind', '=', 'member')
      .where('school_id', '=', input.schoolId)
      .executeTakeFirstOrThrow();
    if (Number(count.n) >= MAX_APPS_PER_SCHOOL) {
      throw new TooManyAppsError(`A school can have at most ${MAX_APPS_PER_SCHOOL} member apps.`);
    }
    await tx
      .insertInto('oauth_clients')
      .values({
        id,
        kind: 'member',
        name: input.name,
        school_id: input.schoolId,
        token_endpoint_auth_method: input.authMethod,
        secret_hash: clientSecret ? sha256(clientSecret) : null,
        redirect_uris: JSON.stringify(input.redirectUris),
        allowed_scopes: formatScopes(input.scopes),
        application_type: applicationType(input.redirectUris),
        metadata: JSON.stringify({
          client_name: input.name,
          redirect_uris: input.redirectUris,
          token_endpoint_auth_method: input.authMethod,
          scope: formatScopes(input.scopes),
        }),
        // Created by the school's own operator: nothing for Lectern to review.
        reviewed: 1,
        metadata_fetched_at: null,
        metadata_expires_at: null,
        created_by_user_id: input.createdByUserId,
        secret_rotated_at: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await recordEvent(tx, input.schoolId, 'member_app.created', {
      client_id: id,
      name: input.name,
      scopes: input.scopes,
    });
  });
  const app = await getMemberApp(db, input.schoolId, id);
  return { app: app!, clientSecret };
}

/** Live grants of an app at its school. */
async function liveGrantsOf(tx: Tx, schoolId: string, clientId: string) {
  return tx
    .selectFrom('oauth_grants')
    .select(['id', 'scopes'])
    .where('client_id', '=', clientId)
    .where('school_id', '=', schoolId)
    .where('revoked_at', 'is', null)
    .execute();
}

/**
 * Edits an app's name, redirect URIs and scopes. Grants holding a scope the app no longer has
 * are revoked with their tokens, so narrowing takes effect at once; returns how many.
 * undefined when the app is not this school's.
 */
export async function updateMemberApp(
  db: Db,
  schoolId: string,
  clientId: string,
  input: Omit<MemberAppInput, 'authMethod'>,
): Promise<{ revokedGrants: number } | undefined> {
  return inTransaction(db, async (tx) => {
    const existing = await getMemberApp(tx, schoolId, clientId);
    if (!existing) return undefined;
    const scope = formatScopes(input.scopes);
    await tx
      .updateTable('oauth_clients')
      .set({
        name: input.name,
        redirect_uris: JSON.stringify(input.redirectUris),
        allowed_scopes: scope,
        application_type: applicationType(input.redirectUris),
        metadata: JSON.stringify({
          client_name: input.name,
          redirect_uris: input.redirectUris,
          token_endpoint_auth_method: existing.authMethod,
          scope,
        }),
        updated_at: isoNow(),
      })
      .where('id', '=', clientId)
      .where('school_id', '=', schoolId)
      .execute();
    const allowed = new Set(input.scopes);
    let revokedGrants = 0;
    for (const grant of await liveGrantsOf(tx, schoolId, clientId)) {
      if (parseScopes(grant.scopes).some((s) => !allowed.has(s))) {
        await revokeGrant(tx, grant.id, { by: 'operator', reason: 'member_app_scopes_narrowed' });
        revokedGrants++;
      }
    }
    return { revokedGrants };
  });
}

/** A new secret, and until when the one it replaced keeps working (null: it stopped at once). */
export interface RotatedSecret {
  readonly secret: string;
  readonly previousValidUntil: string | null;
}

/**
 * Replaces a confidential app's secret. The replaced one keeps authenticating for
 * `overlapSeconds` (0: it stops at once), so a deployment can switch without downtime. There is
 * one previous secret at most: rotating again during an overlap ends the oldest secret at once
 * (the one being replaced now gets the new overlap). The update is conditional on the secret it
 * read, so two concurrent rotations cannot both keep the same predecessor; the loser retries.
 * undefined when the app is not this school's or is public.
 */
export async function rotateMemberAppSecret(
  db: Db,
  schoolId: string,
  clientId: string,
  overlapSeconds: number,
): Promise<RotatedSecret | undefined> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const row = await db
      .selectFrom('oauth_clients')
      .select('secret_hash')
      .where('id', '=', clientId)
      .where('kind', '=', 'member')
      .where('school_id', '=', schoolId)
      .where('token_endpoint_auth_method', '=', 'client_secret_post')
      .executeTakeFirst();
    if (!row?.secret_hash) return undefined;
    const secret = randomToken(32);
    const now = isoNow();
    const previousValidUntil = overlapSeconds > 0 ? isoIn(overlapSeconds) : null;
    // The new secret and its event commit together (the outbox).
    const rotated = await inTransaction(db, async (tx) => {
      const result = await tx
        .updateTable('oauth_clients')
        .set({
          secret_hash: sha256(secret),
          previous_secret_hash: previousValidUntil ? row.secret_hash : null,
          previous_secret_expires_at: previousValidUntil,
          secret_rotated_at: now,
          updated_at: now,
        })
        .where('id', '=', clientId)
        .where('school_id', '=', schoolId)
        .where('secret_hash', '=', row.secret_hash)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return false;
      await recordEvent(tx, schoolId, 'member_app.secret_rotated', { client_id: clientId });
      return true;
    });
    if (rotated) return { secret, previousValidUntil };
  }
  throw new Error('the client secret kept changing during rotation');
}

/**
 * Deletes an app: every grant is revoked with its tokens first (RFC 7009 §2.1), then the client
 * row goes (its grants, codes and tokens with it). false when the app is not this school's.
 */
export async function deleteMemberApp(db: Db, schoolId: string, clientId: string): Promise<boolean> {
  return inTransaction(db, async (tx) => {
    if (!(await getMemberApp(tx, schoolId, clientId))) return false;
    for (const grant of await liveGrantsOf(tx, schoolId, clientId)) {
      await revokeGrant(tx, grant.id, { by: 'operator', reason: 'member_app_deleted' });
    }
    await tx
      .deleteFrom('oauth_clients')
      .where('id', '=', clientId)
      .where('kind', '=', 'member')
      .where('school_id', '=', schoolId)
      .execute();
    await recordEvent(tx, schoolId, 'member_app.deleted', { client_id: clientId });
    return true;
  });
}
