import { encodeCursor, type Page, type PageParams } from '../domain/kernel/pagination.ts';
import { LIMITS } from './limits.ts';

/** Relay connection arguments as the schema declares them (`first` already range-checked). */
export interface ConnectionArgs {
  readonly first?: number | null;
  readonly after?: string | null;
}

/**
 * A connection resolved lazily: the page is read only if `nodes`, `edges` or `pageInfo` is
 * asked for, the count only if `totalCount` is, each at most once.
 */
export interface LazyConnection<T extends { id: string }> {
  page(): Promise<{ nodes: T[]; hasNextPage: boolean }>;
  total(): Promise<number>;
  readonly hasPreviousPage: boolean;
}

/** Builds a lazy connection over a domain list function and its count. */
export function lazyConnection<T extends { id: string }>(
  args: ConnectionArgs,
  list: (page: PageParams) => Promise<Page<T>>,
  count: () => Promise<number>,
): LazyConnection<T> {
  const first = args.first ?? LIMITS.defaultFirst;
  const cursor = args.after ?? null;
  let page: Promise<{ nodes: T[]; hasNextPage: boolean }> | undefined;
  let total: Promise<number> | undefined;
  return {
    hasPreviousPage: cursor !== null,
    page() {
      page ??=
        first === 0
          ? // Relay allows first: 0 (e.g. only totalCount): look one ahead for hasNextPage.
            list({ limit: 1, cursor }).then((p) => ({ nodes: [], hasNextPage: p.data.length > 0 }))
          : list({ limit: first, cursor }).then((p) => ({
              nodes: p.data,
              hasNextPage: p.next_cursor !== null,
            }));
      return page;
    },
    total() {
      total ??= count();
      return total;
    },
  };
}

type Conn = LazyConnection<{ id: string }>;

/** Field resolvers shared by every *Connection type of the schema. */
export const connectionResolvers = {
  nodes: (c: Conn) => c.page().then((p) => p.nodes),
  edges: (c: Conn) => c.page().then((p) => p.nodes.map((node) => ({ cursor: encodeCursor(node.id), node }))),
  pageInfo: async (c: Conn) => {
    const { nodes, hasNextPage } = await c.page();
    return {
      hasNextPage,
      hasPreviousPage: c.hasPreviousPage,
      startCursor: nodes.length > 0 ? encodeCursor(nodes[0].id) : null,
      endCursor: nodes.length > 0 ? encodeCursor(nodes[nodes.length - 1].id) : null,
    };
  },
  totalCount: (c: Conn) => c.total(),
};
