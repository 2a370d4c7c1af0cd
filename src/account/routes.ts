import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { type BearerRefusal, challengeHeaders, RefusalError, renderRefusals } from '../errors/refusal.ts';
import type { AppContext } from '../http/context.ts';
import { resourceMetadataUrl } from '../oauth/metadata/resource-param.ts';
import { ACCOUNT_CHALLENGE_SCOPES } from '../oauth/scopes.ts';
import { decisionRefusal, type ProtectedEnv, requireBearer } from '../resource/middleware.ts';
import { requestError } from './errors.ts';
import { ASSET_PREFIX, graphiqlAsset, graphiqlPage } from './graphiql.ts';
import { anonymousIntrospection } from './introspection.ts';
import { type GraphQLParams, type ResultBody, runGraphQL } from './pipeline.ts';
import { ACCOUNT_SDL } from './schema.ts';

const PATH = '/account/graphql';
/** Request bodies: the 10 KB query plus variables, with room to spare. */
const MAX_BODY_BYTES = 64 * 1024;

const GRAPHQL_RESPONSE = 'application/graphql-response+json';

// GraphQL-over-HTTP §Accept: answer in the newer media type when the client asks for it.
function respond(
  c: Context,
  status: number,
  body: ResultBody,
  headers: Record<string, string> = {},
): Response {
  const accept = c.req.header('accept') ?? '';
  const type = accept.includes(GRAPHQL_RESPONSE) ? GRAPHQL_RESPONSE : 'application/json';
  return c.body(JSON.stringify(body), status as 200, {
    'Content-Type': `${type}; charset=utf-8`,
    'Cache-Control': 'no-store',
    Vary: 'Accept',
    ...headers,
  });
}

/** Bearer refusals as a GraphQL body, with the RFC 6750 challenge header (product.md §6). */
const renderRefusal = (c: Context, r: BearerRefusal) =>
  respond(
    c,
    r.status,
    {
      errors: [
        { message: r.description, extensions: { code: r.error, ...(r.scope ? { scope: r.scope } : {}) } },
      ],
    },
    challengeHeaders(r),
  );

const tooLarge = (c: Context) =>
  respond(c, 413, {
    errors: [requestError(`The request body exceeds ${MAX_BODY_BYTES} bytes.`, 'PAYLOAD_TOO_LARGE')],
  });

const badRequest = (c: Context, message: string) =>
  respond(c, 400, { errors: [requestError(message, 'BAD_REQUEST')] });

/** Takes `{query, variables?, operationName?}` apart, or says what is wrong with it. */
function toParams(value: unknown): GraphQLParams | string {
  if (Array.isArray(value)) return 'Batched requests are not supported: send one JSON object.';
  if (typeof value !== 'object' || value === null) return 'The body must be a JSON object.';
  const { query, variables, operationName } = value as Record<string, unknown>;
  if (query === undefined || query === null) return 'The request has no "query".';
  if (typeof query !== 'string') return '"query" must be a string.';
  if (
    variables !== undefined &&
    variables !== null &&
    (typeof variables !== 'object' || Array.isArray(variables))
  )
    return '"variables" must be a JSON object.';
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string')
    return '"operationName" must be a string.';
  return {
    query,
    variables: (variables as Record<string, unknown> | null | undefined) ?? null,
    operationName: (operationName as string | null | undefined) ?? null,
  };
}

function fromQueryString(c: Context): GraphQLParams | string {
  const variables = c.req.query('variables');
  let parsed: unknown = null;
  if (variables) {
    try {
      parsed = JSON.parse(variables);
    } catch {
      return '"variables" is not valid JSON.';
    }
  }
  return toParams({
    query: c.req.query('query'),
    variables: parsed,
    operationName: c.req.query('operationName'),
  });
}

async function fromBody(c: Context): Promise<GraphQLParams | Response> {
  const mediaType = (c.req.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (mediaType !== 'application/json') {
    return respond(c, 415, {
      errors: [requestError('The body must be application/json.', 'UNSUPPORTED_MEDIA_TYPE')],
    });
  }
  const text = await c.req.text();
  // A chunked body has no Content-Length to check up front (the app-wide cap bounds the read).
  if (Buffer.byteLength(text, 'utf8') > MAX_BODY_BYTES) return tooLarge(c);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return badRequest(c, 'The body is not valid JSON.');
  }
  const params = toParams(value);
  return typeof params === 'string' ? badRequest(c, params) : params;
}

/**
 * The Account API (spec §2.5, §4.6, §5.6): `POST /account/graphql` (and GET for queries) with a
 * member token holding `account:read`; GraphiQL for browsers; the SDL for tools.
 */
export function createAccountApp(ctx: AppContext): Hono<ProtectedEnv> {
  const app = new Hono<ProtectedEnv>();
  // The token's refusals and the operation's (pipeline.ts) alike: a GraphQL body and the challenge.
  app.onError(renderRefusals(renderRefusal));
  const accountMetadata = resourceMetadataUrl(ctx.config.baseUrl, '/account/graphql');
  // Spec §5.6 / §7: even a request with no token is answered invalid_token. What the token may
  // do is decided once the operation is known (pipeline.ts).
  const auth = requireBearer(ctx, {
    challengeScopes: ACCOUNT_CHALLENGE_SCOPES,
    errorWhenMissing: true,
    resource: '/account/graphql',
  });
  // A request with no Authorization header that only introspects is answered without one
  // (introspection.ts); everything else, and every presented token, goes through `auth`.
  const introspection: MiddlewareHandler<ProtectedEnv> = async (c, next) => {
    if (c.req.header('authorization') !== undefined) return next();
    const params = c.req.method === 'GET' ? fromQueryString(c) : await fromBody(c);
    const outcome =
      typeof params === 'string' || params instanceof Response
        ? undefined
        : await anonymousIntrospection(params);
    if (outcome?.outcome !== 'result') return next();
    return respond(c, outcome.status, outcome.body);
  };
  // Content-Length is read from the header, not through `c.req.raw.body`, which would build a
  // web Request and stream for every POST.
  const limit: MiddlewareHandler<ProtectedEnv> = async (c, next) => {
    const length = Number(c.req.header('content-length') ?? 0);
    if (length > MAX_BODY_BYTES) return tooLarge(c);
    await next();
  };

  const run = async (c: Context<ProtectedEnv>, params: GraphQLParams, method: 'GET' | 'POST') => {
    const outcome = await runGraphQL(params, {
      db: ctx.db,
      principal: c.get('principal'),
      logger: ctx.logger,
      requestId: c.get('requestId'),
      method,
    });
    if (outcome.outcome === 'refused')
      throw new RefusalError(decisionRefusal(accountMetadata, outcome.refusal));
    return respond(c, outcome.status, outcome.body, outcome.status === 405 ? { Allow: 'POST' } : {});
  };

  // Browser member apps: answered before auth; `*` is safe because only bearer tokens, never
  // cookies, authenticate here.
  app.use(
    PATH,
    cors({
      origin: '*',
      allowMethods: ['GET', 'POST', 'OPTIONS'],
      allowHeaders: ['Authorization', 'Content-Type', 'Accept'],
      exposeHeaders: ['WWW-Authenticate'],
      maxAge: 86400,
    }),
  );
  app.get(`${PATH}/schema.graphql`, (c) =>
    c.body(ACCOUNT_SDL, 200, {
      'Content-Type': 'text/plain; charset=utf-8',
      'Cache-Control': 'public, max-age=300',
    }),
  );
  app.get(`${ASSET_PREFIX}/:name`, graphiqlAsset);
  app.get(
    PATH,
    async (c, next) => ((c.req.header('accept') ?? '').includes('text/html') ? graphiqlPage(c) : next()),
    introspection,
    auth,
    async (c) => {
      const params = fromQueryString(c);
      return typeof params === 'string' ? badRequest(c, params) : run(c, params, 'GET');
    },
  );
  app.post(PATH, limit, introspection, auth, async (c) => {
    const params = await fromBody(c);
    return params instanceof Response ? params : run(c, params, 'POST');
  });
  app.all(PATH, (c) =>
    respond(
      c,
      405,
      {
        errors: [
          requestError(
            `${c.req.method} is not allowed here; use POST (or GET for queries).`,
            'METHOD_NOT_ALLOWED',
          ),
        ],
      },
      { Allow: 'GET, POST' },
    ),
  );
  return app;
}
