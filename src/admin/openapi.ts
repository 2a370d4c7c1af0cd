import { z } from 'zod';
import { DOCS_CLIENT_ID } from '../oauth/clients/console-clients.ts';
import { describeScope, OPERATOR_SCOPES, RESOURCE_SCOPES } from '../oauth/scopes.ts';
import type { AdminOperation } from './define-operation.ts';
import { GROUP_DESCRIPTIONS, OPENAPI_INTRO } from './openapi-text.ts';
import { adminSchemas, pageItems } from './schemas.ts';

type Json = Record<string, unknown>;

const pascal = (name: string) =>
  name
    .split(/[._]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');

// zod's JSON Schema is exact but noisy for readers: drop the date-time regex (the format says
// it) and the ±2^53 bounds every integer carries.
const tidy = (ctx: { jsonSchema: z.core.JSONSchema.BaseSchema }) => {
  const s = ctx.jsonSchema;
  if (s.format === 'date-time') delete s.pattern;
  if (s.minimum === Number.MIN_SAFE_INTEGER) delete s.minimum;
  if (s.maximum === Number.MAX_SAFE_INTEGER) delete s.maximum;
};

function components(
  ops: readonly AdminOperation[],
  io: 'input' | 'output',
  pick: (op: AdminOperation) => z.ZodType | undefined,
  suffix: string,
) {
  const registry = z.registry<{ id: string; description?: string }>();
  for (const [id, { schema, description }] of adminSchemas) registry.add(schema, { id, description });
  const ids = new Map<AdminOperation, string>();
  for (const op of ops) {
    const schema = pick(op);
    if (!schema) continue;
    const existing = registry.get(schema)?.id;
    const id = existing ?? `${pascal(op.name)}${suffix}`;
    if (!existing) registry.add(schema, { id });
    ids.set(op, id);
  }
  const out = z.toJSONSchema(registry, {
    io,
    uri: (id) => `#/components/schemas/${id}`,
    override: tidy,
    unrepresentable: 'any',
  }) as { schemas: Record<string, Json> };
  for (const s of Object.values(out.schemas)) {
    delete s.$schema;
    delete s.$id;
  }
  return { schemas: out.schemas, ids };
}

function parameters(op: AdminOperation): Json[] {
  const list: Json[] = [];
  for (const [where, schema] of [
    ['path', op.input.params],
    ['query', op.input.query],
  ] as const) {
    if (!schema) continue;
    const json = z.toJSONSchema(schema, {
      io: 'input',
      override: tidy,
      unrepresentable: 'any',
    }) as Json;
    const props = (json.properties ?? {}) as Record<string, Json>;
    const required = new Set((json.required as string[] | undefined) ?? []);
    for (const [name, prop] of Object.entries(props)) {
      const { description, ...rest } = prop;
      list.push({
        name,
        in: where,
        required: where === 'path' || required.has(name),
        description,
        schema: rest,
      });
    }
  }
  if (op.method === 'POST') list.push({ $ref: '#/components/parameters/IdempotencyKey' });
  if (op.method === 'PATCH' && op.etag) list.push({ $ref: '#/components/parameters/IfMatch' });
  return list;
}

const problem = (description: string, code: string, status: number, extra: Json = {}) => ({
  description,
  content: {
    'application/problem+json': {
      schema: { $ref: '#/components/schemas/Problem' },
      example: { type: 'about:blank', title: description, status, code, ...extra },
    },
  },
});

const ERROR_RESPONSES = {
  BadRequest: problem('Bad Request', 'malformed_json', 400, {
    detail: 'The request body is not valid JSON.',
  }),
  Unauthorized: {
    ...problem('Unauthorized', 'invalid_token', 401, { detail: 'The access token has expired.' }),
    headers: {
      'WWW-Authenticate': {
        schema: { type: 'string' },
        description: 'RFC 6750 challenge with `resource_metadata` (RFC 9728).',
      },
    },
  },
  Forbidden: {
    ...problem('Forbidden', 'insufficient_scope', 403, {
      detail: 'This request needs the courses:write scope.',
    }),
    headers: {
      'WWW-Authenticate': {
        schema: { type: 'string' },
        description: 'For `insufficient_scope`: names the scope to step up to.',
      },
    },
  },
  NotFound: problem('Not Found', 'not_found', 404, { detail: 'No such course.' }),
  Conflict: problem('Conflict', 'slug_taken', 409, {
    detail: 'Another course of this school already uses the slug "intro".',
  }),
  PreconditionFailed: problem('Precondition Failed', 'precondition_failed', 412),
  UnsupportedMediaType: problem('Unsupported Media Type', 'unsupported_media_type', 415),
  PayloadTooLarge: problem('Payload Too Large', 'payload_too_large', 413, {
    detail: 'The request body exceeds 26214400 bytes.',
  }),
  ValidationFailed: problem('Validation Failed', 'validation_failed', 422, {
    errors: [{ field: 'body.title', message: 'Too small: expected string to have >=1 characters' }],
  }),
};

/**
 * The response example of an operation: its own, else one of another operation with the same
 * schema (an update shows what a get shows), else a page of such an example for a list.
 */
function responseExample(op: AdminOperation, ops: readonly AdminOperation[]): unknown {
  if (op.examples?.response !== undefined) return op.examples.response;
  const of = (schema: unknown) =>
    ops.find((o) => o.output === schema && o.examples?.response !== undefined)?.examples?.response;
  const same = of(op.output);
  if (same !== undefined) return same;
  const item = op.output && pageItems.get(op.output);
  const itemExample = item && of(item);
  return itemExample === undefined ? undefined : { data: [itemExample], next_cursor: null };
}

function responses(op: AdminOperation, outputId: string | undefined, example: unknown): Json {
  const status = String(op.status ?? (op.output ? 200 : 204));
  const ok: Json = { description: op.output ? 'Success' : 'Done; no content.' };
  if (op.binary === 'download') {
    ok.content = {
      'application/octet-stream': {
        schema: { type: 'string', contentMediaType: 'application/octet-stream' },
      },
    };
  } else if (outputId) {
    const media: Json = { schema: { $ref: `#/components/schemas/${outputId}` } };
    if (example !== undefined) media.example = example;
    ok.content = { 'application/json': media };
  }
  const headers: Json = {};
  if (op.etag)
    headers.ETag = { schema: { type: 'string' }, description: 'Send back as `If-Match` on PATCH.' };
  if (status === '201')
    headers.Location = {
      schema: { type: 'string', format: 'uri' },
      description: 'Where to read what was created.',
    };
  if (Object.keys(headers).length > 0) ok.headers = headers;
  const out: Json = {
    [status]: ok,
    '400': { $ref: '#/components/responses/BadRequest' },
    '401': { $ref: '#/components/responses/Unauthorized' },
    '403': { $ref: '#/components/responses/Forbidden' },
    '404': { $ref: '#/components/responses/NotFound' },
  };
  if (op.method === 'GET' && op.etag)
    out['304'] = { description: 'Not modified: `If-None-Match` matched the ETag.' };
  if (!op.annotations.readOnly) out['409'] = { $ref: '#/components/responses/Conflict' };
  if (op.binary === 'download') {
    out['206'] = {
      description: 'The one byte range `Range` asked for (RFC 9110 §14), with `Content-Range`.',
      content: {
        'application/octet-stream': {
          schema: { type: 'string', contentMediaType: 'application/octet-stream' },
        },
      },
    };
    out['416'] = { description: 'The range lies beyond the file: `Content-Range: bytes */<size>`.' };
  }
  if (op.binary === 'upload') out['413'] = { $ref: '#/components/responses/PayloadTooLarge' };
  if (op.method === 'PATCH' && op.etag) out['412'] = { $ref: '#/components/responses/PreconditionFailed' };
  if (op.input.body || op.binary === 'upload')
    out['415'] = { $ref: '#/components/responses/UnsupportedMediaType' };
  out['422'] = { $ref: '#/components/responses/ValidationFailed' };
  return out;
}

function requestBody(op: AdminOperation, bodyId: string | undefined): Json | undefined {
  if (op.binary === 'upload') {
    return {
      required: true,
      description:
        'The file: raw bytes with their own Content-Type (name in `?filename=`), or multipart/form-data with a `file` part.',
      content: {
        '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
        'multipart/form-data': {
          schema: {
            type: 'object',
            properties: { file: { type: 'string', contentMediaType: 'application/octet-stream' } },
            required: ['file'],
          },
        },
      },
    };
  }
  if (!bodyId) return undefined;
  const media: Json = { schema: { $ref: `#/components/schemas/${bodyId}` } };
  if (op.examples?.request !== undefined) media.example = op.examples.request;
  return { required: op.method === 'POST' || op.method === 'PUT', content: { 'application/json': media } };
}

/** The OpenAPI 3.1 document of the admin API, generated from the operation catalogue. */
export function buildOpenApiDocument(baseUrl: string, ops: readonly AdminOperation[]): Json {
  const outputs = components(
    ops,
    'output',
    (op) => (op.binary === 'download' ? undefined : op.output),
    'Response',
  );
  const inputs = components(ops, 'input', (op) => op.input.body, 'Request');
  const schemas: Record<string, Json> = { ...outputs.schemas };
  for (const id of inputs.ids.values()) schemas[id] = inputs.schemas[id];
  const paths: Record<string, Record<string, Json>> = {};
  for (const op of ops) {
    const entry: Json = {
      operationId: op.name,
      summary: op.summary,
      description: `${op.description ?? op.summary}\n\nRequired scope: \`${op.scope}\`${op.scope.endsWith(':read') ? ` (or \`${op.scope.replace(/:read$/, ':write')}\`)` : ''}.`,
      tags: [op.group],
      security: [{ oauth2: [op.scope] }],
      'x-required-scope': op.scope,
      'x-lectern-annotations': op.annotations,
      parameters: parameters(op),
      responses: responses(op, outputs.ids.get(op), responseExample(op, ops)),
    };
    const body = requestBody(op, inputs.ids.get(op));
    if (body) entry.requestBody = body;
    paths[op.path] ??= {};
    paths[op.path][op.method.toLowerCase()] = entry;
  }
  // Tags in catalogue order (courses first), which is how a reader meets the API.
  const groups = [...new Set(ops.map((op) => op.group))].filter((g) => g in RESOURCE_SCOPES);
  return {
    openapi: '3.1.0',
    info: { title: 'Lectern Admin API', version: '1.0.0', description: OPENAPI_INTRO(baseUrl) },
    servers: [{ url: baseUrl }],
    security: [{ oauth2: [] }],
    tags: groups.map((name) => ({
      name,
      'x-displayName': name.charAt(0).toUpperCase() + name.slice(1).replaceAll('_', ' '),
      description: GROUP_DESCRIPTIONS[name] ?? name,
    })),
    paths,
    components: {
      schemas,
      responses: ERROR_RESPONSES,
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'Any unique string (a UUID): a retry with the same key and request replays the first success instead of running again. Remembered 24 hours.',
          schema: { type: 'string', minLength: 1, maxLength: 255 },
        },
        IfMatch: {
          name: 'If-Match',
          in: 'header',
          required: false,
          description: 'The ETag you read; if the resource changed since, the update is refused with 412.',
          schema: { type: 'string' },
        },
      },
      securitySchemes: {
        oauth2: {
          type: 'oauth2',
          // PKCE and the console's client_id are Scalar settings (docs.ts), not document
          // extensions: Redocly reads `x-usePkce` as its own, differently shaped one.
          description: `OAuth 2.1 authorization code flow with PKCE (S256). Discovery: ${baseUrl}/.well-known/oauth-authorization-server. In the reference at ${baseUrl}/docs, "Authorize" signs in with the public client \`${DOCS_CLIENT_ID}\`.`,
          flows: {
            authorizationCode: {
              authorizationUrl: `${baseUrl}/oauth/authorize`,
              tokenUrl: `${baseUrl}/api/oauth/token`,
              refreshUrl: `${baseUrl}/api/oauth/token`,
              scopes: Object.fromEntries(OPERATOR_SCOPES.map((s) => [s, describeScope(s)])),
            },
          },
        },
      },
    },
  };
}
