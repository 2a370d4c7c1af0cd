/**
 * The scope catalogue of spec §5.4 and the audience rules of product.md §4. Every other module
 * asks this one what a scope means; nothing else lists scope names.
 */

export const IDENTITY_SCOPES = ['openid', 'profile', 'email', 'offline_access'] as const;

/** Admin resource groups and the access each offers (`read`, `write`). */
export const RESOURCE_SCOPES = {
  courses: ['read', 'write'],
  students: ['read', 'write'],
  members: ['read', 'write'],
  analytics: ['read'],
  curriculum: ['read', 'write'],
  orders: ['read'],
  school: ['read', 'write'],
  appearance: ['read', 'write'],
  events: ['read', 'write'],
  membership_plans: ['read', 'write'],
  coupons: ['read', 'write'],
  posts: ['read', 'write'],
  subscriptions: ['read', 'write'],
  digital_products: ['read', 'write'],
  comments: ['read'],
  lecturers: ['read', 'write'],
  storage: ['write'],
  forms: ['read'],
  pages: ['read', 'write'],
} as const satisfies Record<string, readonly ('read' | 'write')[]>;

export type ResourceGroup = keyof typeof RESOURCE_SCOPES;

export const OPERATOR_SCOPES: readonly string[] = Object.entries(RESOURCE_SCOPES).flatMap(([group, access]) =>
  access.map((a) => `${group}:${a}`),
);
export const OPERATOR_READ_SCOPES: readonly string[] = OPERATOR_SCOPES.filter((s) => s.endsWith(':read'));
export const MEMBER_SCOPES = ['account:read', 'account:write'] as const;

/** Every scope name the server knows, as advertised in `scopes_supported`. */
export const ALL_SCOPES: readonly string[] = [...IDENTITY_SCOPES, ...OPERATOR_SCOPES, ...MEMBER_SCOPES];

export type Audience = 'operator' | 'member';

/** Plain-language wording of each scope for the consent page and docs. */
export function describeScope(scope: string): string {
  const fixed: Record<string, string> = {
    openid: 'Confirm who you are',
    profile: 'See your name',
    email: 'See your email address',
    offline_access: 'Stay connected when you are not using it',
    'account:read': 'See your courses, progress, orders and event registrations',
    'account:write': 'Record your progress, register for events and update your name',
    'storage:write': 'Upload files to the school',
  };
  if (fixed[scope]) return fixed[scope];
  const [group, access] = scope.split(':');
  const label = group.replaceAll('_', ' ');
  return access === 'write' ? `View and change the school's ${label}` : `View the school's ${label}`;
}

/** Splits a space-separated scope string, dropping empties and duplicates (order kept). */
export function parseScopes(value: string | null | undefined): string[] {
  if (!value) return [];
  return [...new Set(value.split(' ').filter(Boolean))];
}

/** Canonical scope string: known scopes in catalogue order, space-separated. */
export function formatScopes(scopes: Iterable<string>): string {
  const set = new Set(scopes);
  return ALL_SCOPES.filter((s) => set.has(s)).join(' ');
}

/** The scopes of a list that the server does not know. */
export function unknownScopes(scopes: readonly string[]): string[] {
  return scopes.filter((s) => !ALL_SCOPES.includes(s));
}

/** True if the granted scopes allow `required`; `<x>:write` implies `<x>:read` (product.md §4). */
export function hasScope(granted: readonly string[] | ReadonlySet<string>, required: string): boolean {
  const set = granted instanceof Set ? granted : new Set(granted as readonly string[]);
  if (set.has(required)) return true;
  if (required.endsWith(':read')) return set.has(`${required.slice(0, -':read'.length)}:write`);
  return false;
}

/** The audience a scope belongs to, or 'both' for identity scopes. */
export function scopeAudience(scope: string): Audience | 'both' {
  if ((IDENTITY_SCOPES as readonly string[]).includes(scope)) return 'both';
  if ((MEMBER_SCOPES as readonly string[]).includes(scope)) return 'member';
  return 'operator';
}

/** Identity scopes plus every operator read scope: the default an operator client may ask for. */
export const MCP_CHALLENGE_SCOPES: readonly string[] = [
  'openid',
  'profile',
  'email',
  ...OPERATOR_READ_SCOPES,
];

/** What `/account/graphql` tells a client to ask for (product.md §6). */
export const ACCOUNT_CHALLENGE_SCOPES: readonly string[] = ['openid', 'account:read'];
