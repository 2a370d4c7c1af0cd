/**
 * The first-party consoles' OAuth clients: the API reference at `/docs` (operator audience) and
 * GraphiQL at `/account/graphql` (member audience). Each has a fixed client_id, is public and uses
 * PKCE S256 like every client, and returns to its own page of this deployment. They exist on
 * every deployment, demo data or not: written at start-up beside the vendor list, with redirect
 * URIs derived from BASE_URL (so a changed BASE_URL moves them on the next start).
 */
import type { AppContext } from '../../http/context.ts';
import { isoNow } from '../../store/time.ts';
import type { ClientKind } from '../tables.ts';
import type { OAuthClient } from './client-row.ts';

/** client_id of the `/docs` API reference (Scalar's "Authorize"). */
export const DOCS_CLIENT_ID = 'lectern-api-reference';
/** client_id of GraphiQL at `/account/graphql`. */
export const GRAPHIQL_CLIENT_ID = 'lectern-graphiql';

/** Paths the consoles live at, which are also their redirect URIs (relative to BASE_URL). */
export const CONSOLE_PATHS = { docs: '/docs', graphiql: '/account/graphql' } as const;

interface ConsoleClient {
  readonly id: string;
  readonly name: string;
  /**
   * 'vendor' rows are the reviewed, school-less, operator-audience clients with fixed redirects;
   * a school-less 'member' row is a member app of the whole deployment (usable at any school
   * that has MCP connections on, see authorize-request.ts eligibleSchools).
   */
  readonly kind: Extract<ClientKind, 'vendor' | 'member'>;
  readonly path: string;
  /** What the consent page calls it: a page of this very site, not an app elsewhere. */
  readonly onThisSite: string;
}

const CONSOLES: readonly ConsoleClient[] = [
  {
    id: DOCS_CLIENT_ID,
    name: 'Lectern API reference',
    kind: 'vendor',
    path: CONSOLE_PATHS.docs,
    onThisSite: "Lectern's API reference on this site",
  },
  {
    id: GRAPHIQL_CLIENT_ID,
    name: 'Lectern GraphiQL',
    kind: 'member',
    path: CONSOLE_PATHS.graphiql,
    onThisSite: 'the GraphQL explorer on this site',
  },
];

/** client_ids no vendor list may take. */
export const CONSOLE_CLIENT_IDS: readonly string[] = CONSOLES.map((c) => c.id);

/** True for the first-party consoles' clients (lists of connected apps name them as Lectern's own). */
export function isConsoleClient(client: Pick<OAuthClient, 'id'>): boolean {
  return CONSOLE_CLIENT_IDS.includes(client.id);
}

/**
 * How the consent page names a request that comes from a console of this site, or undefined when
 * it does not. It does only while the request returns to the console's own page here: its one
 * registered redirect URI (BASE_URL + path), character for character. On a loopback BASE_URL,
 * RFC 8252 §7.3 lets any port match too; another port is another program on the computer, which
 * borrowed the console's client_id and is no page of this site.
 */
export function consoleOnThisSite(
  client: Pick<OAuthClient, 'id' | 'kind' | 'redirectUris'>,
  redirectUri: string,
): string | undefined {
  const found = CONSOLES.find((c) => c.id === client.id && c.kind === client.kind);
  return found && client.redirectUris.includes(redirectUri) ? found.onThisSite : undefined;
}

/**
 * Inserts or updates the console clients; safe from several instances at once. A row of another
 * kind under the same id is never taken over.
 */
export async function syncConsoleClients(ctx: AppContext): Promise<void> {
  const now = isoNow();
  for (const c of CONSOLES) {
    const redirectUri = ctx.config.baseUrl + c.path;
    const values = {
      name: c.name,
      token_endpoint_auth_method: 'none' as const,
      secret_hash: null,
      redirect_uris: JSON.stringify([redirectUri]),
      // null: the audience's rules decide (all operator scopes; account:* plus identity scopes).
      allowed_scopes: null,
      application_type: 'web' as const,
      reviewed: 1,
      metadata: JSON.stringify({
        client_name: c.name,
        redirect_uris: [redirectUri],
        token_endpoint_auth_method: 'none',
        first_party: true,
      }),
      metadata_fetched_at: null,
      metadata_expires_at: null,
      updated_at: now,
    };
    await ctx.db
      .insertInto('oauth_clients')
      .values({
        id: c.id,
        kind: c.kind,
        school_id: null,
        created_by_user_id: null,
        secret_rotated_at: null,
        created_at: now,
        ...values,
      })
      .onConflict((oc) => oc.column('id').doUpdateSet(values).where('oauth_clients.kind', '=', c.kind))
      .execute();
  }
}
