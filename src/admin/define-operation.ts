import type { z } from 'zod';
import type { AppContext } from '../http/context.ts';
import type { FileBody } from '../http/file-response.ts';
import { OPERATOR_SCOPES, RESOURCE_SCOPES, type ResourceGroup } from '../oauth/scopes.ts';
import type { Principal } from '../resource/principal.ts';
import type { Db, Tx } from '../store/database.ts';
import { pageItems } from './schemas.ts';

/**
 * The contract of one admin operation: the single definition from which the REST route, its
 * `/openapi.json` entry and its MCP operator tool are all derived (architecture.md "one
 * catalogue, three surfaces").
 *
 * For the MCP surface: `name` is the tool name (dots allowed; replace with `_` if a client
 * needs), `summary`/`description` its description, `scope` the one scope that lists it,
 * `annotations` map to MCP tool annotations (`readOnlyHint`, `destructiveHint`,
 * `idempotentHint`); src/mcp/operator-tools.ts flattens params, query and body into its input,
 * and `invokeOperation(...)` (invoke.ts) runs it with the same checks as REST. `binary`
 * operations (file upload/download) take or give bytes and are REST-only.
 */
export interface OperationDefinition<
  P extends z.ZodObject = z.ZodObject,
  Q extends z.ZodObject = z.ZodObject,
  B extends z.ZodType = z.ZodType,
  O extends z.ZodType = z.ZodType,
> {
  /** `<group>.<verb>`, e.g. `courses.create`; unique; also the OpenAPI operationId. */
  readonly name: string;
  /** Resource group (the OpenAPI tag): always the name's prefix, so derived from it. */
  readonly group: ResourceGroup;
  readonly summary: string;
  readonly description?: string;
  /** Exactly one scope from the catalogue (src/oauth/scopes.ts); `x:write` also satisfies `x:read`. */
  readonly scope: string;
  readonly method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** OpenAPI-style path under `/api/v1`, with `{param}` placeholders. */
  readonly path: string;
  readonly input: { readonly params?: P; readonly query?: Q; readonly body?: B };
  /** Response body schema; undefined means 204 No Content. */
  readonly output?: O;
  /** Success status (default 200; 201 for creates, 204 without output). */
  readonly status?: 200 | 201 | 202 | 204;
  /** What it does to its resource: the console builds its pages from it (operationKind). */
  readonly kind: OperationKind;
  /** MCP tool hints; derived from the method (see METHOD_HINTS) unless the spec says otherwise. */
  readonly annotations: OperationHints;
  /** `ETag` on the response (GET/PATCH of one resource); PATCH then honours `If-Match`. */
  readonly etag?: boolean;
  /** For PATCH with `If-Match`: loads the current representation (read in the write's transaction). */
  readonly current?: (
    ctx: OperationContext,
    input: OperationInput<P, Q, z.ZodType>,
  ) => Promise<z.output<O> | BinaryResult>;
  /** Bytes in (`upload`) or out (`download`) instead of JSON. */
  readonly binary?: 'upload' | 'download';
  readonly examples?: { readonly request?: unknown; readonly response?: unknown };
  /**
   * Response fields shown only to the request that produced them (a one-time link): never kept
   * in the stored Idempotency-Key response, so a replay answers without them.
   */
  readonly once?: readonly string[];
  readonly handler: (
    ctx: OperationContext,
    input: OperationInput<P, Q, B>,
  ) => Promise<z.output<O> | BinaryResult>;
}

/** The validated input of an operation. `raw` carries an upload's bytes and headers. */
interface OperationInput<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> {
  readonly params: z.output<P>;
  readonly query: z.output<Q>;
  readonly body: z.output<B>;
  readonly raw?: RawUpload;
}

/** An upload as received: bytes, declared content type and filename. */
export interface RawUpload {
  readonly bytes: Uint8Array;
  readonly contentType: string;
  readonly filename: string;
}

/** A download: the file, read on demand (http/file-response.ts), and the headers that describe it. */
export interface BinaryResult {
  readonly kind: 'binary';
  readonly file: FileBody;
  readonly headers: Record<string, string>;
}

/** What a handler runs with: the app, a database handle (maybe a transaction) and who asks. */
export interface OperationContext {
  readonly app: AppContext;
  readonly db: Db | Tx;
  readonly principal: Principal;
  /** Shortcut for `principal.schoolId`: the only school an operation ever touches. */
  readonly schoolId: string;
}

/** An operation of any shape, as the catalogue holds them. */
// biome-ignore lint/suspicious/noExplicitAny: the catalogue is heterogeneous by design
export type AdminOperation = OperationDefinition<any, any, any, any>;

/**
 * What an operation does to its resource, as Django's admin has a list, an add, a change and a
 * delete view: `list` reads a page of items, `get` one, `create` makes one (201), `update`
 * changes one, `delete` removes one, `action` does something to one (cancel, publish).
 */
export type OperationKind = 'list' | 'get' | 'create' | 'update' | 'delete' | 'action';

/**
 * An operation's kind as its method, status and output declare it (RFC 9110 §9.3: GET reads,
 * POST processes, 201 says a resource was created; PATCH and PUT change, DELETE removes). An
 * operation these do not describe declares its `kind` itself.
 */
function operationKind(spec: {
  method: OperationDefinition['method'];
  status?: number;
  output?: z.ZodType;
}): OperationKind {
  switch (spec.method) {
    case 'GET':
      return spec.output && pageItems.has(spec.output) ? 'list' : 'get';
    case 'POST':
      return spec.status === 201 ? 'create' : 'action';
    case 'DELETE':
      return 'delete';
    default:
      return 'update';
  }
}

/** MCP tool hints of an operation (spec: server/tools "Tool annotations"). */
interface OperationHints {
  readonly readOnly: boolean;
  readonly destructive: boolean;
  readonly idempotent: boolean;
}

/**
 * What an operation's method says about it (RFC 9110 §9.2: GET is safe, PUT and DELETE are
 * idempotent; PATCH here only sets the fields it names, so repeating it changes nothing more).
 */
const METHOD_HINTS: Record<OperationDefinition['method'], OperationHints> = {
  GET: { readOnly: true, destructive: false, idempotent: true },
  POST: { readOnly: false, destructive: false, idempotent: false },
  PATCH: { readOnly: false, destructive: false, idempotent: true },
  PUT: { readOnly: false, destructive: false, idempotent: true },
  DELETE: { readOnly: false, destructive: true, idempotent: true },
};

/**
 * An operation as its module writes it: `group` comes from the name, `annotations` from the
 * method, and only an operation its method does not describe (a POST that cancels) says more.
 */
export type OperationSpec<
  P extends z.ZodObject,
  Q extends z.ZodObject,
  B extends z.ZodType,
  O extends z.ZodType,
> = Omit<OperationDefinition<P, Q, B, O>, 'group' | 'annotations' | 'kind'> & {
  readonly annotations?: Partial<OperationHints>;
  readonly kind?: OperationKind;
};

/** Declares an operation, checking at load time that its scope exists and its name is well-formed. */
export function defineOperation<
  P extends z.ZodObject,
  Q extends z.ZodObject,
  B extends z.ZodType,
  O extends z.ZodType,
>(spec: OperationSpec<P, Q, B, O>): OperationDefinition<P, Q, B, O> {
  const group = spec.name.split('.')[0];
  if (!OPERATOR_SCOPES.includes(spec.scope)) throw new Error(`${spec.name}: unknown scope ${spec.scope}`);
  if (!/^[a-z_]+\.[a-z_]+$/.test(spec.name)) throw new Error(`${spec.name}: name must be <group>.<verb>`);
  if (!(group in RESOURCE_SCOPES)) throw new Error(`${spec.name}: ${group} is not a resource group`);
  if (!spec.path.startsWith('/api/v1/')) throw new Error(`${spec.name}: path must start with /api/v1/`);
  return {
    ...spec,
    group: group as ResourceGroup,
    kind: spec.kind ?? operationKind(spec),
    annotations: { ...METHOD_HINTS[spec.method], ...spec.annotations },
  };
}
