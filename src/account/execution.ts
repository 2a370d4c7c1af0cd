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
  /** Compiled operations kept (least recently used dropped first). */
  maxCompiled: 100,
  /** Compilations per minute for the whole process: past that, graphql-js runs until it refills. */
  compilesPerMinute: 60,
};

/** Compiled operations by their (cached) operation node; `null`: graphql-js runs it for good. */
const compiled = new Map<OperationDefinitionNode, CompiledQuery | null>();
/** Runs per operation node, forgotten with the document when the parse cache drops it. */
const runs = new WeakMap<OperationDefinitionNode, number>();
let budget = { windowStart: 0, used: 0 };

/** How many compiled (or refused) operations are held: for the bound's test. */
export function compiledCount(): number {
  return compiled.size;
}

/** Forgets every compiled operation (tests switch paths with it). */
export function clearCompiled(): void {
  compiled.clear();
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
  const result = await query.query(undefined, run.context, run.variables);
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
  if (hit !== undefined) {
    // Least recently used goes first: move the hit to the end.
    compiled.delete(op);
    compiled.set(op, hit);
    return hit;
  }
  const seen = (runs.get(op) ?? 0) + 1;
  runs.set(op, seen);
  if (seen < JIT.compileAfter || !withinBudget()) return null;
  const query = eligible(op, run.document) ? compile(run.document, op) : null;
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
