import {
  type DocumentNode,
  type ExecutionResult,
  execute,
  type GraphQLError,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import type { AccountContext } from './context.ts';
import { accountSchema } from './schema.ts';

/**
 * When a cached operation is executed by graphql-jit instead of graphql-js (docs/decisions.md,
 * "graphql-jit"). Mutable only so tests can force either path; nothing else writes it.
 */
export const JIT = {
  /** Runs through graphql-js before an operation is compiled: one-off queries never are. */
  compileAfter: 3,
  /**
   * Compiled operations kept, least recently used dropped first: one holds ~50 KB for the §2.5
   * query, ~190 KB for a whole-course-tree query (docs/decisions.md).
   */
  maxCompiled: 50,
  /** Compilations per minute for the whole process: past that, graphql-js runs until it refills. */
  compilesPerMinute: 60,
};

/** Compiled operations by their (cached) operation node, in least-recently-used order. */
const compiled = new Map<OperationDefinitionNode, CompiledQuery>();
/**
 * Runs per operation node, and the operations graphql-js keeps (not eligible, or graphql-jit
 * could not compile them): both forgotten with the document when the parse cache drops it.
 */
let runs = new WeakMap<OperationDefinitionNode, number>();
let refused = new WeakSet<OperationDefinitionNode>();
let budget = { windowStart: 0, used: 0 };

/** How many compiled operations are held: for the bound's test. */
export function compiledCount(): number {
  return compiled.size;
}

/** Forgets every compiled operation and every count (tests switch paths with it). */
export function clearCompiled(): void {
  compiled.clear();
  runs = new WeakMap();
  refused = new WeakSet();
  budget = { windowStart: 0, used: 0 };
}

export interface Execution {
  readonly document: DocumentNode;
  readonly operation: OperationDefinitionNode;
  /** The raw variables: both engines coerce them (pipeline.ts has already checked they do). */
  readonly variables: Record<string, unknown>;
  readonly context: AccountContext;
}

/**
 * Executes one validated operation: with its compiled form when it has one, else with
 * graphql-js (compiling it once it has been run `compileAfter` times and the budget allows).
 */
export async function executeOperation(run: Execution): Promise<ExecutionResult> {
  const query = compiledFor(run);
  if (!query) return execute(jsExecution(run));
  let result: ExecutionResult;
  try {
    result = await query.query(undefined, run.context, run.variables);
  } catch {
    // Resolver errors are caught inside the compiled function: this is graphql-jit failing.
    // Queries only read, so graphql-js may run it again.
    return execute(jsExecution(run));
  }
  // No data at all: its variable parsing refused what graphql-js accepted (pipeline.ts coerced
  // them first). Never seen; graphql-js answers such a request as it always did.
  if (result.data === undefined) return execute(jsExecution(run));
  if (result.errors) return { ...result, errors: result.errors.map(asGraphQLJsError) };
  return result;
}

function jsExecution(run: Execution) {
  return {
    schema: accountSchema,
    document: run.document,
    operationName: run.operation.name?.value,
    variableValues: run.variables,
    contextValue: run.context,
  };
}

function compiledFor(run: Execution): CompiledQuery | null {
  const op = run.operation;
  const hit = compiled.get(op);
  if (hit) {
    // Least recently used goes first: move the hit to the end.
    compiled.delete(op);
    compiled.set(op, hit);
    return hit;
  }
  if (refused.has(op)) return null;
  const seen = (runs.get(op) ?? 0) + 1;
  runs.set(op, seen);
  if (seen < JIT.compileAfter) return null;
  if (!eligible(op, run.document)) {
    refused.add(op);
    return null;
  }
  if (!withinBudget()) return null;
  const query = compile(run.document, op);
  if (!query) {
    refused.add(op);
    return null;
  }
  if (compiled.size >= JIT.maxCompiled) compiled.delete(compiled.keys().next().value!);
  compiled.set(op, query);
  return query;
}

function withinBudget(): boolean {
  const now = Date.now();
  if (now - budget.windowStart >= 60_000) budget = { windowStart: now, used: 0 };
  if (budget.used >= JIT.compilesPerMinute) return false;
  budget.used++;
  return true;
}

function compile(document: DocumentNode, op: OperationDefinitionNode): CompiledQuery | null {
  try {
    const query = compileQuery(accountSchema, document, op.name?.value, {
      // Resolver errors keep their own stack; the errors it builds itself need none.
      disablingCapturingStackErrors: true,
    });
    return isCompiledQuery(query) ? query : null;
  } catch {
    return null;
  }
}

/**
 * Only queries, and only without introspection: mutations keep graphql-js (graphql-jit hands a
 * resolver `null` for an input field graphql-js leaves out, graphql-jit#230, and mutations are
 * not the hot path), and `__schema` / `__type` are answered by graphql-js as before.
 */
function eligible(op: OperationDefinitionNode, document: DocumentNode): boolean {
  if (op.operation !== 'query') return false;
  const fragments = new Map<string, SelectionSetNode>();
  for (const d of document.definitions) {
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d.selectionSet);
  }
  const seen = new Set<string>();
  const introspects = (set: SelectionSetNode): boolean =>
    set.selections.some((s) => {
      if (s.kind === Kind.FIELD) {
        const name = s.name.value;
        if (name === '__schema' || name === '__type') return true;
        return s.selectionSet ? introspects(s.selectionSet) : false;
      }
      if (s.kind === Kind.INLINE_FRAGMENT) return introspects(s.selectionSet);
      if (seen.has(s.name.value)) return false;
      seen.add(s.name.value);
      const f = fragments.get(s.name.value);
      return f ? introspects(f) : false;
    });
  return !introspects(op.selectionSet);
}

/**
 * graphql-jit's own errors (a non-null field that resolved to null, a leaf its scalar cannot
 * serialize) carry no original error, where graphql-js's carry the Error it threw: give them
 * one, so errors.ts treats them as graphql-js's (masked and logged, not shown as user input).
 */
function asGraphQLJsError(error: GraphQLError): GraphQLError {
  if (error.originalError) return error;
  // Its properties are not writable: a child object inherits message, locations and path.
  return Object.create(error, { originalError: { value: new Error(error.message) } }) as GraphQLError;
}
