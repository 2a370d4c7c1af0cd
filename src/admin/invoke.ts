import { createHash } from 'node:crypto';
import type { z } from 'zod';
import {
  type FieldError,
  type FieldRule,
  ProblemError,
  problem,
  problems,
  ruledFieldError,
} from '../errors/problem-error.ts';
import type { AppContext } from '../http/context.ts';
import type { Requirement } from '../resource/authorization.ts';
import type { Principal } from '../resource/principal.ts';
import type { Tx } from '../store/database.ts';
import type { AdminOperation, BinaryResult, OperationContext, RawUpload } from './define-operation.ts';
import { checkIdempotencyKey, type IdempotentRequest, runIdempotently } from './idempotency.ts';
import { snakeKey } from './schemas.ts';

/** Unvalidated input as a surface received it. */
export interface RawInput {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  raw?: RawUpload;
}

/** What an operation produced, before a surface renders it. */
export interface InvokeResult {
  readonly status: number;
  readonly body?: unknown;
  readonly etag?: string;
  readonly binary?: BinaryResult;
}

/**
 * What an operation needs of a token: the operator audience and its one scope. REST meets it in
 * the bearer step (resource/middleware.ts), MCP in the tool-call gate; both render the one decision.
 */
export function operationRequirement(op: AdminOperation): Requirement {
  return { audience: 'operator', scopes: [op.scope] };
}

/** The value at `path` inside `value`, to tell a missing field from a wrong one. */
function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/** The rule an issue reports, by zod's code and bounds. */
function ruleOf(issue: z.core.$ZodIssue, value: unknown): FieldRule {
  switch (issue.code) {
    case 'too_small':
      return {
        code: issue.code,
        origin: issue.origin,
        minimum: Number(issue.minimum),
        inclusive: issue.inclusive ?? false,
      };
    case 'too_big':
      return {
        code: issue.code,
        origin: issue.origin,
        maximum: Number(issue.maximum),
        inclusive: issue.inclusive ?? false,
      };
    case 'invalid_type':
      return {
        code: issue.code,
        expected: issue.expected,
        missing: valueAt(value, issue.path) === undefined,
      };
    case 'invalid_value':
      return { code: issue.code, values: issue.values.map(String) };
    case 'invalid_format':
      return { code: issue.code, format: issue.format };
    default:
      return { code: issue.code };
  }
}

function fieldErrors(where: string, error: z.ZodError, value: unknown): FieldError[] {
  return error.issues.map((i) => {
    const path = [...i.path.map(String)];
    if (i.code === 'unrecognized_keys') {
      return { field: [where, ...path, i.keys.join(',')].join('.'), message: 'is not a known field' };
    }
    return ruledFieldError([where, ...path].join('.'), i.message, ruleOf(i, value));
  });
}

/** Validates each part of the input with the operation's schemas; 422 naming every failing field. */
export function parseInput(op: AdminOperation, raw: RawInput) {
  const errors: FieldError[] = [];
  const part = (where: 'params' | 'query' | 'body', schema: z.ZodType | undefined, value: unknown) => {
    if (!schema) return where === 'body' ? undefined : {};
    const r = schema.safeParse(value);
    if (!r.success) errors.push(...fieldErrors(where, r.error, value));
    return r.data;
  };
  const params = part('params', op.input.params, raw.params ?? {});
  const query = part('query', op.input.query, raw.query ?? {});
  const body = part('body', op.input.body, raw.body);
  if (errors.length > 0) throw problems.validation(errors);
  return { params, query, body, raw: raw.raw };
}

/** A strong entity tag of a JSON representation (RFC 9110 §8.8.3). */
function entityTag(body: unknown): string {
  return `"${createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 27)}"`;
}

/** RFC 9110 §13.1.1: If-Match uses the strong comparison; `*` matches any current representation. */
function ifMatchSatisfied(header: string, current: string): boolean {
  if (header.trim() === '*') return true;
  return header
    .split(',')
    .map((t) => t.trim())
    .some((t) => !t.startsWith('W/') && t === current);
}

// Domain modules name fields in their own camelCase; the API speaks snake_case, under `body.`
// (or `query.` for operations without a body).
function apiFields(op: AdminOperation, err: unknown): unknown {
  if (!(err instanceof ProblemError) || !err.errors) return err;
  const where = op.input.body || op.binary === 'upload' ? 'body' : op.input.query ? 'query' : 'params';
  const errors = err.errors.map((e) =>
    /^(body|query|params)(\.|$)/.test(e.field)
      ? e
      : { ...e, field: `${where}.${e.field.split('.').map(snakeKey).join('.')}` },
  );
  return problem(err.code, { detail: err.detail, errors, headers: err.headers as Record<string, string> });
}

const lostRace = () =>
  problems.preconditionFailed('The resource changed while this update ran; read it again and retry.');

/**
 * Runs a conditional update: the If-Match check and the write in one transaction. On SQLite
 * transactions are serial; on PostgreSQL it runs at REPEATABLE READ, so a concurrent writer that
 * commits between our read and our write makes ours fail with a serialization error (SQLSTATE
 * 40001), which is exactly a failed precondition (412), never a lost update.
 */
async function conditionally<T>(app: AppContext, run: (tx: Tx) => Promise<T>): Promise<T> {
  if (app.config.database.engine !== 'postgres') return app.db.transaction().execute(run);
  try {
    return await app.db.transaction().setIsolationLevel('repeatable read').execute(run);
  } catch (err) {
    if ((err as { code?: string }).code === '40001') throw lostRace();
    throw err;
  }
}

/** An operation's input once its schemas have accepted it. */
export type ValidInput = ReturnType<typeof parseInput>;

/**
 * Runs one operation for a principal the surface has already authorized (REST: the bearer step;
 * MCP: the tool-call gate, both rendering the one decision): input validation, optimistic
 * concurrency (`If-Match`, checked and written in one transaction) and the handler.
 * Framework-free: the REST router and the MCP tools both call this.
 */
export async function invokeOperation(
  app: AppContext,
  principal: Principal,
  op: AdminOperation,
  raw: RawInput,
  options: { ifMatch?: string } = {},
): Promise<InvokeResult> {
  return runOperation(app, principal, op, parseInput(op, raw), options);
}

/**
 * Runs a prepared operation's handler. With `tx` it runs inside the caller's transaction (the
 * Idempotency-Key claim's), If-Match check included; otherwise as invokeOperation says.
 */
export async function runOperation(
  app: AppContext,
  principal: Principal,
  op: AdminOperation,
  input: ValidInput,
  options: { ifMatch?: string; tx?: Tx } = {},
): Promise<InvokeResult> {
  const base: Omit<OperationContext, 'db'> = { app, principal, schoolId: principal.schoolId };
  try {
    const run = async (db: OperationContext['db']) => {
      const ctx: OperationContext = { ...base, db };
      if (options.ifMatch !== undefined && op.current) {
        const current = entityTag(await op.current(ctx, input));
        if (!ifMatchSatisfied(options.ifMatch, current)) {
          throw problems.preconditionFailed(
            'The resource has changed since you read it (If-Match does not match its ETag).',
          );
        }
      }
      return op.handler(ctx, input);
    };
    const result = options.tx
      ? await run(options.tx)
      : options.ifMatch !== undefined && op.current
        ? await conditionally(app, run)
        : await run(app.db);
    if (op.binary === 'download') {
      return { status: op.status ?? 200, binary: result as BinaryResult };
    }
    if (!op.output) return { status: 204 };
    return { status: op.status ?? 200, body: result, etag: op.etag ? entityTag(result) : undefined };
  } catch (err) {
    throw apiFields(op, err);
  }
}

// A one-time field (an invitation link) is a secret: the stored replay never holds it.
function withoutOnce(op: AdminOperation, body: unknown): unknown {
  if (!op.once || typeof body !== 'object' || body === null) return body;
  const copy: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const field of op.once) delete copy[field];
  return copy;
}

/**
 * Runs a POST under an idempotency key (REST's `Idempotency-Key`, the console's one-time form
 * key): the claim, the work and the stored response commit together (idempotency.ts), so the
 * same key and request runs once and every repeat gets the first response back (`replayed`).
 * `path` is the request's path as the caller names it; with the method, query, body and upload
 * it is the request the key is bound to (another request under the key is a 422).
 */
export async function invokeIdempotently(
  app: AppContext,
  principal: Principal,
  op: AdminOperation,
  raw: RawInput,
  options: { key: string; path: string; ifMatch?: string },
): Promise<{ result: InvokeResult; replayed: boolean }> {
  checkIdempotencyKey(options.key);
  // Validated before the key is claimed or the request fingerprinted: an invalid request is
  // the same 422 with or without a key and claims nothing, and the fingerprint is taken of
  // schema-shaped input (a 100 000-level JSON array never reaches JSON.stringify).
  const valid = parseInput(op, raw);
  const request: IdempotentRequest = {
    schoolId: principal.schoolId,
    clientId: principal.clientId,
    key: options.key,
    method: op.method,
    path: options.path,
    fingerprint: JSON.stringify([
      valid.query,
      valid.body ?? null,
      raw.raw ? entityTag(Buffer.from(raw.raw.bytes).toString('base64')) : null,
    ]),
  };
  const outcome = await runIdempotently(
    app.db,
    request,
    (tx) => runOperation(app, principal, op, valid, { ifMatch: options.ifMatch, tx }),
    (result) => ({
      status: result.status,
      body: result.body === undefined ? '' : JSON.stringify(withoutOnce(op, result.body)),
    }),
  );
  if (outcome.kind === 'executed') return { result: outcome.result, replayed: false };
  const stored = outcome.body === '' ? undefined : JSON.parse(outcome.body);
  return {
    result: { status: outcome.status, body: stored, etag: op.etag ? entityTag(stored) : undefined },
    replayed: true,
  };
}
