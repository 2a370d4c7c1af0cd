import type { TestApp } from '../support/app.ts';

/** POSTs a GraphQL request with a bearer token; returns status, headers and parsed body. */
export async function gql(
  t: TestApp,
  token: string | null,
  query: string,
  variables?: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: GqlBody }> {
  const res = await t.request('/account/graphql', {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: JSON.stringify(variables ? { query, variables } : { query }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as GqlBody };
}

export interface GqlBody {
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are walked freely and asserted exactly.
  data?: any;
  errors?: Array<{
    message: string;
    path?: unknown[];
    locations?: unknown[];
    extensions?: Record<string, unknown>;
  }>;
}
