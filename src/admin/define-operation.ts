import type { z } from 'zod';
import type { AppContext } from '../http/context.ts';
import { OPERATOR_SCOPES, type ResourceGroup } from '../oauth/scopes.ts';
import type { Principal } from '../resource/principal.ts';
import type { Db, Tx } from '../store/database.ts';

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
  /** Resource group (the OpenAPI tag). */
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
  readonly annotations: {
    readonly readOnly: boolean;
    readonly destructive: boolean;
    readonly idempotent: boolean;
  };
  /** `ETag` on the response (GET/PATCH of one resource); PATCH then honours `If-Match`. */
  readonly etag?: boolean;
  /** For PATCH with `If-Match`: loads the current representation (read in the write's transaction). */
  readonly current?: (ctx: OperationContext, input: OperationInput<P, Q, z.ZodType>) => Promise<z.output<O>>;
  /** Bytes in (`upload`) or out (`download`) instead of JSON. */
  readonly binary?: 'upload' | 'download';
  readonly examples?: { readonly request?: unknown; readonly response?: unknown };
  readonly handler: (
    ctx: OperationContext,
    input: OperationInput<P, Q, B>,
  ) => Promise<z.output<O> | BinaryResult>;
}

/** The validated input of an operation. `raw` carries an upload's bytes and headers. */
export interface OperationInput<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> {
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

/** A download: bytes and the headers that describe them. */
export interface BinaryResult {
  readonly kind: 'binary';
  readonly bytes: Uint8Array;
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

/** Declares an operation, checking at load time that its scope exists and its name is well-formed. */
export function defineOperation<
  P extends z.ZodObject,
  Q extends z.ZodObject,
  B extends z.ZodType,
  O extends z.ZodType,
>(op: OperationDefinition<P, Q, B, O>): OperationDefinition<P, Q, B, O> {
  if (!OPERATOR_SCOPES.includes(op.scope)) throw new Error(`${op.name}: unknown scope ${op.scope}`);
  if (!/^[a-z_]+\.[a-z_]+$/.test(op.name)) throw new Error(`${op.name}: name must be <group>.<verb>`);
  if (!op.path.startsWith('/api/v1/')) throw new Error(`${op.name}: path must start with /api/v1/`);
  return op;
}
