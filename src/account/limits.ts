import {
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLFormattedError,
  type GraphQLNamedType,
  type GraphQLSchema,
  getArgumentValues,
  getNamedType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { requestError } from './errors.ts';

/** Abuse limits of the Account API (product.md §6), published in docs/decisions.md. */
export const LIMITS = {
  /** Bytes of the `query` string. */
  maxQueryBytes: 10_000,
  /** Lexical tokens the parser reads before giving up (graphql-js `maxTokens`). */
  maxTokens: 2_000,
  /** Nesting of ordinary fields. */
  maxDepth: 10,
  /** Nesting inside `__schema` / `__type` (GraphiQL's own introspection query needs 15). */
  maxIntrospectionDepth: 16,
  /** Estimated objects a query may produce (see checkCost). */
  maxCost: 50_000,
  /**
   * What a connection costs on top of its objects: each runs its own statements (page, count),
   * so this bounds the round trips of one request to about maxCost / connectionCost.
   */
  connectionCost: 500,
  /** Largest `first` of a connection; more is an error, never a silent clamp. */
  maxFirst: 100,
  /** Page size when `first` is omitted. */
  defaultFirst: 20,
} as const;

/** Expected sizes of the plain lists (no `first`) used by the cost estimate. */
const LIST_ESTIMATES: Record<string, number> = { sections: 10, lectures: 20, items: 5, roles: 1 };
const DEFAULT_LIST_ESTIMATE = 10;

type Fragments = ReadonlyMap<string, FragmentDefinitionNode>;

/** The fragments of a document by name. */
export function fragmentsOf(definitions: readonly { kind: Kind }[]): Map<string, FragmentDefinitionNode> {
  const out = new Map<string, FragmentDefinitionNode>();
  for (const d of definitions) {
    if (d.kind === Kind.FRAGMENT_DEFINITION) {
      const f = d as FragmentDefinitionNode;
      out.set(f.name.value, f);
    }
  }
  return out;
}

/** Every field node of a selection set, fragments expanded (validation has ruled out cycles). */
function fieldsOf(set: SelectionSetNode, fragments: Fragments, out: FieldNode[] = []): FieldNode[] {
  for (const s of set.selections) {
    if (s.kind === Kind.FIELD) out.push(s);
    else if (s.kind === Kind.INLINE_FRAGMENT) fieldsOf(s.selectionSet, fragments, out);
    else {
      const f = fragments.get(s.name.value);
      if (f) fieldsOf(f.selectionSet, fragments, out);
    }
  }
  return out;
}

function depthOf(set: SelectionSetNode | undefined, fragments: Fragments, errors: string[]): number {
  if (!set) return 0;
  let max = 0;
  for (const field of fieldsOf(set, fragments)) {
    const name = field.name.value;
    if (name === '__schema' || name === '__type') {
      const d = 1 + depthOf(field.selectionSet, fragments, errors);
      if (d > LIMITS.maxIntrospectionDepth)
        errors.push(`introspection deeper than ${LIMITS.maxIntrospectionDepth}`);
      continue;
    }
    max = Math.max(max, 1 + depthOf(field.selectionSet, fragments, errors));
  }
  return max;
}

/** Depth check of one operation: static, so it runs once per cached document. */
export function checkDepth(
  operation: OperationDefinitionNode,
  fragments: Fragments,
): GraphQLFormattedError[] {
  const errors: string[] = [];
  const depth = depthOf(operation.selectionSet, fragments, errors);
  if (depth > LIMITS.maxDepth) errors.push(`${depth} levels deep; the limit is ${LIMITS.maxDepth}`);
  return errors.length === 0
    ? []
    : [
        requestError(`The query is too deep: ${errors[0]}.`, 'DEPTH_LIMIT_EXCEEDED', {
          limit: LIMITS.maxDepth,
        }),
      ];
}

interface CostState {
  readonly schema: GraphQLSchema;
  readonly fragments: Fragments;
  readonly variables: Record<string, unknown>;
  readonly errors: GraphQLFormattedError[];
}

/**
 * Estimates the objects a query can produce, using the real `first` of each connection (with
 * its variables) and LIST_ESTIMATES for plain lists, plus connectionCost per connection, and
 * checks every `first` on the way. Scalars cost nothing (totalCount 1); introspection is bounded
 * by depth and token limits instead.
 */
export function checkCost(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Fragments,
  variables: Record<string, unknown>,
): GraphQLFormattedError[] {
  const root = operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  if (!root) return [];
  const state: CostState = { schema, fragments, variables, errors: [] };
  const cost = costOf(operation.selectionSet, root, null, state);
  if (state.errors.length > 0) return state.errors;
  if (cost > LIMITS.maxCost) {
    return [
      requestError(
        `The query could return about ${cost} objects; the limit is ${LIMITS.maxCost}. Ask for smaller pages or fewer fields.`,
        'COST_LIMIT_EXCEEDED',
        { cost, limit: LIMITS.maxCost },
      ),
    ];
  }
  return [];
}

function costOf(
  set: SelectionSetNode | undefined,
  type: GraphQLNamedType,
  pageSize: number | null,
  state: CostState,
): number {
  if (!set || !isObjectType(type)) return 0;
  let total = 0;
  for (const node of fieldsOf(set, state.fragments)) {
    const name = node.name.value;
    if (name.startsWith('__')) continue;
    const def = type.getFields()[name];
    if (!def) continue;
    const named = getNamedType(def.type);
    const first = firstOf(def, node, state);
    if (first !== null) total += LIMITS.connectionCost;
    if (!isObjectType(named)) {
      if (name === 'totalCount') total += 1;
      continue;
    }
    const child = costOf(node.selectionSet, named, first, state);
    const unwrapped = isNonNullType(def.type) ? def.type.ofType : def.type;
    if (isListType(unwrapped)) {
      const size =
        (name === 'nodes' || name === 'edges') && pageSize !== null ? pageSize : listEstimate(name);
      total += size * (1 + child);
    } else {
      total += 1 + child;
    }
  }
  return total;
}

function listEstimate(name: string): number {
  return LIST_ESTIMATES[name] ?? DEFAULT_LIST_ESTIMATE;
}

// A connection's `first`, checked: 0..maxFirst. Null when the field takes no `first`.
function firstOf(def: GraphQLField<unknown, unknown>, node: FieldNode, state: CostState): number | null {
  if (!def.args.some((a) => a.name === 'first')) return null;
  let value: unknown;
  try {
    value = getArgumentValues(def, node, state.variables).first;
  } catch {
    return LIMITS.defaultFirst; // Coercion errors are reported by execution itself.
  }
  if (value === undefined || value === null) return LIMITS.defaultFirst;
  if (typeof value !== 'number' || value < 0 || value > LIMITS.maxFirst) {
    state.errors.push({
      message: `"first" must be between 0 and ${LIMITS.maxFirst}; got ${String(value)}.`,
      locations: node.loc ? [locationOf(node)] : undefined,
      extensions: { code: 'BAD_USER_INPUT', argument: 'first', max: LIMITS.maxFirst },
    });
    return 0;
  }
  return value;
}

function locationOf(node: FieldNode): { line: number; column: number } {
  const loc = node.loc;
  if (!loc) return { line: 1, column: 1 };
  return { line: loc.startToken.line, column: loc.startToken.column };
}
