import { type Context, Hono } from 'hono';
import { cors } from 'hono/cors';
import { problemResponse } from '../errors/handler.ts';
import { ProblemError, problem, problems } from '../errors/problem-error.ts';
import { refusalProblem, renderRefusals } from '../errors/refusal.ts';
import type { AppContext, AppEnv } from '../http/context.ts';
import { fileResponse } from '../http/file-response.ts';
import { MCP_CHALLENGE_SCOPES } from '../oauth/scopes.ts';
import { bearerStep } from '../resource/middleware.ts';
import { adminOperations } from './catalogue.ts';
import type { AdminOperation, RawUpload } from './define-operation.ts';
import { registerDocs } from './docs.ts';
import { type InvokeResult, invokeIdempotently, invokeOperation, operationRequirement } from './invoke.ts';
import { buildOpenApiDocument } from './openapi.ts';

const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json\s*(;.*)?$/i;

/** `/api/v1/courses/{course_id}` → Hono's `/api/v1/courses/:course_id`. */
function honoPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

// JSON bodies only: a wrong media type is a 415, unparsable JSON a 400, an empty body `{}`.
async function jsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  if (!JSON_TYPE.test(c.req.header('content-type') ?? ''))
    throw problems.unsupportedMediaType('application/json');
  try {
    return JSON.parse(text);
  } catch {
    throw problem('malformed_json', { detail: 'The request body is not valid JSON.' });
  }
}

const malformedMultipart = (detail: string) => problem('malformed_multipart', { detail });

// RFC 7578 §4.1: the parts of multipart/form-data are delimited by the `boundary` parameter
// (RFC 2046 §5.1.1); a body without one, with parts under another boundary, or cut off before
// the closing delimiter cannot be read, and says so (400) instead of failing inside the parser.
async function multipartForm(c: Context, type: string) {
  if (!/;\s*boundary\s*=\s*("[^"]+"|[^\s;"]+)/i.test(type)) {
    throw malformedMultipart('multipart/form-data needs a boundary parameter (RFC 7578 §4.1).');
  }
  try {
    return await c.req.parseBody();
  } catch (err) {
    if (err instanceof ProblemError) throw err;
    throw malformedMultipart(
      'The multipart/form-data body could not be parsed: its parts must be delimited by the declared boundary and end with the closing delimiter (RFC 2046 §5.1.1).',
    );
  }
}

// An upload is either multipart/form-data with a `file` part or the raw bytes with their type.
async function uploadBody(c: Context): Promise<RawUpload> {
  const type = c.req.header('content-type') ?? '';
  if (/^multipart\/form-data\s*(;|$)/i.test(type)) {
    const form = await multipartForm(c, type);
    const file = form.file;
    if (!(file instanceof File))
      throw problems.validation([{ field: 'body.file', message: 'must be a file part named "file"' }]);
    return { bytes: new Uint8Array(await file.arrayBuffer()), contentType: file.type, filename: file.name };
  }
  if (!type) throw problems.unsupportedMediaType('the file’s own media type, or multipart/form-data');
  return {
    bytes: new Uint8Array(await c.req.arrayBuffer()),
    contentType: type,
    filename: c.req.query('filename') ?? 'upload',
  };
}

/**
 * For a create, the GET operation that reads what it made (same response schema, one path
 * parameter): its path becomes the 201's `Location` (RFC 9110 §10.2.2).
 */
export function locationTemplate(op: AdminOperation, all: readonly AdminOperation[]): string | undefined {
  if (op.method !== 'POST' || (op.status ?? 200) !== 201 || !op.output) return undefined;
  const reader = all.find(
    (o) => o.method === 'GET' && o.output === op.output && (o.path.match(/\{/g) ?? []).length === 1,
  );
  return reader?.path;
}

// A repeated query parameter (`?limit=10&limit=500`) is ambiguous: refuse it rather than guess.
function singleQuery(c: Context): Record<string, string> {
  const all = c.req.queries();
  const repeated = Object.keys(all).filter((k) => all[k].length > 1);
  if (repeated.length > 0) {
    throw problems.validation(repeated.map((k) => ({ field: `query.${k}`, message: 'must be given once' })));
  }
  return Object.fromEntries(Object.entries(all).map(([k, v]) => [k, v[0]]));
}

function render(
  c: Context,
  result: InvokeResult,
  replayed = false,
  location?: string,
): Response | Promise<Response> {
  const headers: Record<string, string> = { 'Cache-Control': 'no-store' };
  const id = (result.body as { id?: unknown } | undefined)?.id;
  if (location && result.status === 201 && typeof id === 'string') {
    headers.Location = location.replace(/\{\w+\}/, encodeURIComponent(id));
  }
  if (replayed) headers['Idempotent-Replayed'] = 'true';
  if (result.binary) return fileResponse(c, result.binary.file, { ...headers, ...result.binary.headers });
  if (result.etag) headers.ETag = result.etag;
  if (result.status === 204) return c.body(null, 204, headers);
  return c.body(JSON.stringify(result.body), result.status as 200, {
    ...headers,
    'Content-Type': 'application/json',
  });
}

function route(ctx: AppContext, op: AdminOperation) {
  const readPath = locationTemplate(op, adminOperations);
  const location = readPath && `${ctx.config.baseUrl}${readPath}`;
  // The token, then the one decision for this operation (its audience and scope).
  const authenticate = bearerStep(ctx, {
    challengeScopes: MCP_CHALLENGE_SCOPES,
    need: operationRequirement(op),
  });
  return async (c: Context) => {
    const principal = await authenticate(c);
    const query = singleQuery(c);
    let body: unknown;
    let raw: RawUpload | undefined;
    if (op.binary === 'upload') raw = await uploadBody(c);
    else if (op.input.body) body = await jsonBody(c);
    const input = { params: c.req.param() as Record<string, string>, query, body, raw };
    const run = () => invokeOperation(ctx, principal, op, input, { ifMatch: c.req.header('if-match') });

    const key = c.req.header('idempotency-key');
    if (op.method !== 'POST' || key === undefined) {
      const result = await run();
      const inm = c.req.header('if-none-match');
      if (
        op.method === 'GET' &&
        result.etag &&
        inm?.split(',').some((t) => t.trim().replace(/^W\//, '') === result.etag)
      ) {
        return c.body(null, 304, { ETag: result.etag, 'Cache-Control': 'no-store' });
      }
      return render(c, result, false, location);
    }
    const outcome = await invokeIdempotently(ctx, principal, op, input, {
      key,
      path: c.req.path,
      ifMatch: c.req.header('if-match'),
    });
    return render(c, outcome.result, outcome.replayed, location);
  };
}

/** The admin REST API (`/api/v1/…`), its OpenAPI document and its rendered reference. */
export function createAdminApp(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // Bearer refusals are problems here (RFC 9457), with the refusal's code and its challenge.
  app.onError(renderRefusals((c, refusal) => problemResponse(c, refusalProblem(refusal))));
  // Browser tools on other origins may call the API: it authenticates by bearer header only,
  // never cookies, so any origin is safe; preflights are answered before authentication.
  app.use(
    '/api/v1/*',
    cors({
      origin: '*',
      allowMethods: ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'],
      allowHeaders: [
        'Authorization',
        'Content-Type',
        'Idempotency-Key',
        'If-Match',
        'If-None-Match',
        'Range',
        'If-Range',
      ],
      exposeHeaders: [
        'ETag',
        'Content-Range',
        'Location',
        'WWW-Authenticate',
        'Idempotent-Replayed',
        'Retry-After',
        'X-Request-Id',
      ],
      maxAge: 600,
    }),
  );
  for (const op of adminOperations) {
    app.on(op.method, honoPath(op.path), route(ctx, op));
  }
  let document: string | undefined;
  app.get('/openapi.json', (c) => {
    document ??= JSON.stringify(buildOpenApiDocument(ctx.config.baseUrl, adminOperations));
    return c.body(document, 200, {
      'Content-Type': 'application/json',
      'Cache-Control': 'public, max-age=300',
      'Access-Control-Allow-Origin': '*',
    });
  });
  registerDocs(app, ctx.config.baseUrl);
  return app;
}
