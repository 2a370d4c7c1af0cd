import {
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLError,
  type GraphQLFormattedError,
  getVariableValues,
  Kind,
  type OperationDefinitionNode,
  parse,
  specifiedRules,
  validate,
} from 'graphql';
import type { Logger } from 'pino';
import { decide, type Refusal, type Requirement } from '../resource/authorization.ts';
import type { Principal } from '../resource/principal.ts';
import type { Db } from '../store/database.ts';
import { createAccountContext } from './context.ts';
import { formatExecutionError, requestError } from './errors.ts';
import { executeOperation } from './execution.ts';
import { checkCost, checkDepth, fragmentsOf, LIMITS } from './limits.ts';
import { accountSchema } from './schema.ts';

/** One GraphQL request, already taken apart from its HTTP envelope. */
export interface GraphQLParams {
  readonly query: string;
  readonly variables?: Record<string, unknown> | null;
  readonly operationName?: string | null;
}

/** What the HTTP layer sends back. `needsScope` asks it for a 403 step-up challenge. */
export type Outcome =
  | { readonly outcome: 'result'; readonly status: 200 | 400 | 405; readonly body: ResultBody }
  | { readonly outcome: 'refused'; readonly refusal: Refusal };

export interface ResultBody {
  data?: unknown;
  errors?: GraphQLFormattedError[];
}

/** A parsed, validated and depth-checked document, cached by its exact query text. */
export interface Prepared {
  readonly document: DocumentNode;
  readonly operations: readonly OperationDefinitionNode[];
  readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  /** Depth errors per operation (static, so computed once). */
  readonly depthErrors: ReadonlyMap<OperationDefinitionNode, GraphQLFormattedError[]>;
  /** Cost errors of operations without variables (static too, filled on first use). */
  readonly staticCost: Map<OperationDefinitionNode, GraphQLFormattedError[]>;
}

const CACHE_SIZE = 500;
const cache = new Map<string, Prepared>();

function remember(query: string, prepared: Prepared): void {
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(query, prepared);
}

const QUERY: Requirement = { audience: 'member', scopes: ['account:read'] };
const MUTATION: Requirement = { audience: 'member', scopes: ['account:write'], needs: 'Mutations need' };

const fail = (status: 400 | 405, errors: GraphQLFormattedError[]): Outcome => ({
  outcome: 'result',
  status,
  body: { errors },
});

function located(e: GraphQLError): Pick<GraphQLFormattedError, 'message' | 'locations'> {
  return e.locations ? { message: e.message, locations: e.locations } : { message: e.message };
}

/** Parses and validates (graphql-js's specified rules), then checks depth; cached when valid. */
export function prepare(query: string): Prepared | Outcome {
  const hit = cache.get(query);
  if (hit) return hit;
  if (Buffer.byteLength(query, 'utf8') > LIMITS.maxQueryBytes) {
    return fail(400, [
      requestError(`The query exceeds ${LIMITS.maxQueryBytes} bytes.`, 'QUERY_TOO_LARGE', {
        limit: LIMITS.maxQueryBytes,
      }),
    ]);
  }
  let document: DocumentNode;
  try {
    document = parse(query, { maxTokens: LIMITS.maxTokens });
  } catch (err) {
    const e = err as GraphQLError;
    return fail(400, [{ ...located(e), extensions: { code: 'GRAPHQL_PARSE_FAILED' } }]);
  }
  const invalid = validate(accountSchema, document, specifiedRules);
  if (invalid.length > 0) {
    return fail(
      400,
      invalid.map((e) => ({ ...located(e), extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })),
    );
  }
  const fragments = fragmentsOf(document.definitions);
  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  const depthErrors = new Map(operations.map((op) => [op, checkDepth(op, fragments)] as const));
  const prepared: Prepared = { document, operations, fragments, depthErrors, staticCost: new Map() };
  remember(query, prepared);
  return prepared;
}

/** The operation to run: the named one, or the only one. */
export function pickOperation(
  prepared: Prepared,
  name: string | null | undefined,
): OperationDefinitionNode | Outcome {
  const ops = prepared.operations;
  const op = name ? ops.find((o) => o.name?.value === name) : ops.length === 1 ? ops[0] : undefined;
  if (op) return op;
  const message = name
    ? `The document has no operation named "${name}".`
    : 'The document has several operations: say which one with "operationName".';
  return fail(400, [requestError(message, 'OPERATION_NOT_FOUND')]);
}

function costErrors(
  prepared: Prepared,
  op: OperationDefinitionNode,
  variables: Record<string, unknown>,
): GraphQLFormattedError[] {
  if (op.variableDefinitions && op.variableDefinitions.length > 0) {
    return checkCost(accountSchema, op, prepared.fragments, variables);
  }
  let errors = prepared.staticCost.get(op);
  if (!errors) {
    errors = checkCost(accountSchema, op, prepared.fragments, variables);
    prepared.staticCost.set(op, errors);
  }
  return errors;
}

/**
 * Runs one GraphQL request for a verified principal: cached parse + validation, operation
 * choice, method and scope rules, variable coercion, cost and `first` checks, then execution
 * on the prebuilt schema with fresh per-request loaders (graphql-jit once an operation has
 * proved hot, execution.ts).
 */
export async function runGraphQL(
  params: GraphQLParams,
  env: { db: Db; principal: Principal; logger: Logger; requestId?: string; method: 'GET' | 'POST' },
): Promise<Outcome> {
  const prepared = prepare(params.query);
  if ('outcome' in prepared) return prepared;
  const op = pickOperation(prepared, params.operationName);
  if ('outcome' in op) return op;
  const depth = prepared.depthErrors.get(op) ?? [];
  if (depth.length > 0) return fail(400, depth);
  if (op.operation === 'subscription') {
    return fail(400, [requestError('Subscriptions are not supported.', 'BAD_REQUEST')]);
  }
  if (op.operation === 'mutation') {
    // GraphQL-over-HTTP §GET: mutations only over POST, so a link or prefetch cannot write.
    if (env.method === 'GET') {
      return fail(405, [requestError('Mutations must be sent with POST.', 'METHOD_NOT_ALLOWED')]);
    }
  }
  // The one authorization decision, once the operation says what it needs: a member token,
  // account:read to read and account:write to write (spec §5.3, product.md §4).
  const decision = decide(env.principal, op.operation === 'mutation' ? MUTATION : QUERY);
  if (!decision.allowed) return { outcome: 'refused', refusal: decision };
  // An operation declaring no variables ignores any sent (graphql-js coerces them to {}).
  const definitions = op.variableDefinitions ?? [];
  const coerced =
    definitions.length === 0
      ? { coerced: {} }
      : getVariableValues(accountSchema, definitions, params.variables ?? {});
  if (coerced.errors) {
    return fail(
      400,
      coerced.errors.map((e) => ({ ...located(e), extensions: { code: 'BAD_USER_INPUT' } })),
    );
  }
  const cost = costErrors(prepared, op, coerced.coerced);
  if (cost.length > 0) return fail(400, cost);
  const result = await executeOperation({
    document: prepared.document,
    operation: op,
    variables: params.variables ?? {},
    context: createAccountContext(env.db, env.principal),
  });
  const body: ResultBody = { data: result.data };
  if (result.errors) {
    body.errors = result.errors.map((e) => formatExecutionError(e, env.logger, env.requestId));
  }
  return { outcome: 'result', status: 200, body };
}
