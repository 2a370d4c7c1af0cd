import {
  execute,
  type FragmentDefinitionNode,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { type GraphQLParams, type Outcome, pickOperation, prepare } from './pipeline.ts';
import { accountSchema } from './schema.ts';

const INTROSPECTION_FIELDS = new Set(['__schema', '__type', '__typename']);

/** True when every root field, fragments expanded, is one of the introspection meta-fields. */
function onlyIntrospection(
  set: SelectionSetNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): boolean {
  return set.selections.every((s) => {
    if (s.kind === Kind.FIELD) return INTROSPECTION_FIELDS.has(s.name.value);
    if (s.kind === Kind.INLINE_FRAGMENT) return onlyIntrospection(s.selectionSet, fragments);
    const fragment = fragments.get(s.name.value);
    return fragment !== undefined && onlyIntrospection(fragment.selectionSet, fragments);
  });
}

/**
 * Answers a request without a token when it is a valid query that only introspects
 * (`__schema`, `__type`, `__typename` at its root), and returns undefined for anything else,
 * which then meets the usual 401 (spec §5.6: data needs a member token). The schema is public
 * (GET /account/graphql/schema.graphql), so tools such as GraphiQL may load it before signing in.
 * The same parse cache and depth limits apply; no resolver of ours runs.
 */
export async function anonymousIntrospection(params: GraphQLParams): Promise<Outcome | undefined> {
  const prepared = prepare(params.query);
  if ('outcome' in prepared) return undefined;
  const op = pickOperation(prepared, params.operationName);
  if ('outcome' in op) return undefined;
  if (!isIntrospectionQuery(op, prepared.fragments)) return undefined;
  if ((prepared.depthErrors.get(op) ?? []).length > 0) return undefined;
  const result = await execute({
    schema: accountSchema,
    document: prepared.document,
    operationName: op.name?.value,
    variableValues: params.variables ?? {},
  });
  // Introspection cannot fail at run time except on bad variables, which the caller then sees.
  return {
    outcome: 'result',
    status: result.errors ? 400 : 200,
    body: result.errors
      ? { errors: result.errors.map((e) => ({ message: e.message, extensions: { code: 'BAD_USER_INPUT' } })) }
      : { data: result.data },
  };
}

function isIntrospectionQuery(
  op: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): boolean {
  return op.operation === 'query' && onlyIntrospection(op.selectionSet, fragments);
}
