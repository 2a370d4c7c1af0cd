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
const MEMBER_SCOPES = ['account:read', 'account:write'] as const;

/** Every scope name the server knows, as advertised in `scopes_supported`. */
export const ALL_SCOPES: readonly string[] = [...IDENTITY_SCOPES, ...OPERATOR_SCOPES, ...MEMBER_SCOPES];

export type Audience = 'operator' | 'member';

/**
 * Each admin resource group as a person reads it, and, where "view and change" would not say it
 * plainly, what its write access does.
 */
const RESOURCE_WORDS: Record<ResourceGroup, { readonly label: string; readonly write?: string }> = {
  courses: { label: 'Courses' },
  students: { label: 'Students, their enrollments and progress', write: 'view, and change enrollments' },
  members: { label: 'Members and invitations' },
  analytics: { label: 'Analytics (revenue, enrollments, completion)' },
  curriculum: { label: 'Course content (sections and lectures)' },
  orders: { label: 'Orders' },
  school: {
    label: 'School settings, webhooks and audit trail',
    write: 'view, and change settings and webhooks',
  },
  appearance: { label: 'Appearance (theme, logo, font)' },
  events: { label: 'Events and registrations' },
  membership_plans: { label: 'Membership plans' },
  coupons: { label: 'Coupons' },
  posts: { label: 'Posts' },
  subscriptions: { label: 'Subscriptions' },
  digital_products: { label: 'Digital products' },
  comments: { label: 'Comments' },
  lecturers: { label: 'Lecturer profiles' },
  storage: { label: 'Files', write: 'view, upload and delete' },
  forms: { label: 'Forms and submissions' },
  pages: { label: 'Pages' },
};

const ACCOUNT_LABEL = 'Your courses, progress, orders and event registrations';
const ACCOUNT_WRITE = 'view, record your progress, register for events and change your name';

/** `<label>: view` or `: view and change` (write implies read, product.md §4). */
function resourceLine(group: ResourceGroup, access: 'read' | 'write'): string {
  const words = RESOURCE_WORDS[group];
  return `${words.label}: ${access === 'write' ? (words.write ?? 'view and change') : 'view'}`;
}

/** The member's own data, at `school` when the page knows which. */
function accountLine(access: 'read' | 'write', school?: string): string {
  const where = school ? ` at ${school}` : '';
  return `${ACCOUNT_LABEL}${where}: ${access === 'write' ? ACCOUNT_WRITE : 'view'}`;
}

/** openid, profile and email said once: "Who you are: your name and email address". */
function identityLine(scopes: ReadonlySet<string>): string | undefined {
  const what =
    scopes.has('profile') && scopes.has('email')
      ? 'your name and email address'
      : scopes.has('profile')
        ? 'your name'
        : scopes.has('email')
          ? 'your email address'
          : '';
  if (scopes.has('openid')) return what ? `Who you are: ${what}` : 'Who you are';
  return what ? what[0].toUpperCase() + what.slice(1) : undefined;
}

const OFFLINE_LINE = 'Stay connected when you are not using it';

function accessOf(scopes: ReadonlySet<string>, group: string): 'read' | 'write' | undefined {
  if (scopes.has(`${group}:write`)) return 'write';
  return scopes.has(`${group}:read`) ? 'read' : undefined;
}

/** Plain-language wording of one scope (OpenAPI, `/auth.md`'s scope table, the admin pages). */
export function describeScope(scope: string): string {
  if (!ALL_SCOPES.includes(scope)) return scope;
  if (scope === 'offline_access') return OFFLINE_LINE;
  const identity = identityLine(new Set([scope]));
  if (identity) return identity;
  const [group, access] = scope.split(':') as [string, 'read' | 'write'];
  return group === 'account' ? accountLine(access) : resourceLine(group as ResourceGroup, access);
}

/**
 * What a set of scopes allows, one line per thing it reaches (the consent page): the identity
 * scopes once, the member's own data (at `school`), then one line per admin resource group with
 * its read and write scopes merged, since write implies read (product.md §4), and staying
 * connected last. A name outside the catalogue is listed as it is, never hidden.
 */
export function describeScopes(scopes: Iterable<string>, options: { school?: string } = {}): string[] {
  const set = new Set(scopes);
  const lines: string[] = [];
  const identity = identityLine(set);
  if (identity) lines.push(identity);
  const account = accessOf(set, 'account');
  if (account) lines.push(accountLine(account, options.school));
  for (const group of Object.keys(RESOURCE_SCOPES) as ResourceGroup[]) {
    const access = accessOf(set, group);
    if (access) lines.push(resourceLine(group, access));
  }
  if (set.has('offline_access')) lines.push(OFFLINE_LINE);
  lines.push(...unknownScopes([...set]));
  return lines;
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
