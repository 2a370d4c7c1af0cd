/**
 * The discovery documents, the JWK Set and client registration, as one sub-app. Browser MCP
 * clients fetch all of them cross-origin, so they answer CORS with `*` (no cookies are involved).
 */
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { getSigningKey, publicJwks } from '../../crypto/signing-keys.ts';
import type { AppContext, AppEnv } from '../../http/context.ts';
import { registerHandler } from '../clients/register.ts';
import { loadVendors } from '../clients/vendors.ts';
import { authorizationServerMetadata, OAUTH_PATHS, protectedResourceMetadata } from './discovery.ts';
import { RESOURCE_PATHS } from './resource-param.ts';

const DISCOVERY_CACHE = 'public, max-age=3600';
// Short, so a rotated-in key is seen soon by clients that do not refetch on an unknown kid.
const JWKS_CACHE = 'public, max-age=300';

/** Builds the sub-app; validates the vendor list now (a bad VENDORS_FILE fails the start). */
export function createOAuthMetadataApp(ctx: AppContext): Hono<AppEnv> {
  // Validates the vendor list now, so a bad VENDORS_FILE stops start-up; the rows themselves are
  // written by `serve` before it listens, and lazily by the first lookup otherwise.
  loadVendors(ctx.config);

  const app = new Hono<AppEnv>();
  const publicCors = cors({ origin: '*', allowMethods: ['GET', 'HEAD', 'OPTIONS'], maxAge: 86_400 });
  app.use('/.well-known/*', publicCors);
  app.use(OAUTH_PATHS.jwks, publicCors);
  app.use(
    OAUTH_PATHS.registration,
    cors({ origin: '*', allowMethods: ['POST', 'OPTIONS'], allowHeaders: ['Content-Type'], maxAge: 86_400 }),
  );

  const json = (body: string, cache: string) =>
    new Response(body, { headers: { 'Content-Type': 'application/json', 'Cache-Control': cache } });

  const asMetadata = () => json(authorizationServerMetadata(ctx.config), DISCOVERY_CACHE);
  app.get('/.well-known/oauth-authorization-server', asMetadata);
  app.get('/.well-known/openid-configuration', asMetadata);
  // RFC 9728 §3.1: each resource's document at the well-known path followed by its own path.
  for (const path of RESOURCE_PATHS) {
    app.get(OAUTH_PATHS.protectedResource + path, () =>
      json(protectedResourceMetadata(ctx.config, path), DISCOVERY_CACHE),
    );
  }
  app.get(OAUTH_PATHS.jwks, async () => {
    // Publishing the key before the first id_token is signed (spec §5.5 allows it) means a
    // client never meets a kid its cached key set lacks.
    await getSigningKey(ctx);
    const jwks = await publicJwks(ctx);
    return new Response(JSON.stringify(jwks), {
      headers: { 'Content-Type': 'application/jwk-set+json', 'Cache-Control': JWKS_CACHE },
    });
  });
  app.post(OAUTH_PATHS.registration, registerHandler(ctx));
  return app;
}
