/**
 * The console's groups: which part of the catalogue each page group shows, under which name and
 * URL. The operations of a group are found in the catalogue by method and path shape, so a new
 * operation appears in the browser the way it appears in REST and MCP, with the same schemas
 * and handler (admin/invoke.ts).
 */
import type { z } from 'zod';
import { adminOperations } from '../../../admin/catalogue.ts';
import type { AdminOperation, OperationKind } from '../../../admin/define-operation.ts';
import { pageItems } from '../../../admin/schemas.ts';

/** An operation on one item (`POST /x/{id}/verb`): a button on the detail page. */
export interface ActionOperation {
  readonly op: AdminOperation;
  /** The last path segment: `cancel`, `publish`. */
  readonly verb: string;
}

/** A nested list (`GET /x/{id}/y`): a table on the detail page, with row actions if any. */
export interface SubList {
  readonly op: AdminOperation;
  /** The nested segment: `registrations`. */
  readonly segment: string;
  /** `POST /x/{id}/y/{sub_id}/verb`. */
  readonly rowActions: readonly ActionOperation[];
}

/** The URL segments of the generated groups under `/admin/<schoolId>/`. */
export type ConsoleSlug =
  | 'courses'
  | 'students'
  | 'lecturers'
  | 'coupons'
  | 'membership-plans'
  | 'subscriptions'
  | 'digital-products'
  | 'events'
  | 'posts'
  | 'comments'
  | 'pages'
  | 'forms'
  | 'school'
  | 'appearance';

/** How a generated group is described before its operations are found. */
interface GroupSpec {
  /** URL segment under `/admin/<schoolId>/`. */
  readonly slug: ConsoleSlug;
  /** Its link in the navigation, and the list page's heading. */
  readonly name: string;
  /** One of them, lower case: "course" → "New course". */
  readonly noun: string;
  /** The admin API collection path the operations share (`/api/v1/courses`). */
  readonly api: string;
  /** A single resource (`/api/v1/school`): a details page and its edit form, no list. */
  readonly single?: boolean;
  /**
   * The list's columns after the row's link: the first is the link itself unless the group
   * words its rows with `title`, whose words the columns then do not repeat.
   */
  readonly columns?: readonly string[];
  /**
   * What a new one's form starts with where the API's default is not in its schema (a coupon is
   * active unless it says otherwise; an unticked box would send false).
   */
  readonly defaults?: Item;
  /** Fields the forms leave out (the currency of a price is the school's). */
  readonly omit?: readonly string[];
  /** The words of a row's link; by default its title, name, code, number or email. */
  readonly title?: (item: Item) => string;
}

/** One object as the API returns it. */
export type Item = Record<string, unknown>;

/** A generated group with the catalogue operations that make it. */
export interface ConsoleGroup extends GroupSpec {
  readonly list?: AdminOperation;
  readonly get?: AdminOperation;
  readonly create?: AdminOperation;
  readonly update?: AdminOperation;
  readonly delete?: AdminOperation;
  readonly actions: readonly ActionOperation[];
  readonly subLists: readonly SubList[];
}

const nameOf = (item: Item, key: string): string | undefined => {
  const v = item[key] as Item | null | undefined;
  return v && typeof v === 'object'
    ? (v.name as string) || (v.title as string) || (v.email as string)
    : undefined;
};

/** The generated groups in the navigation's order. */
const SPECS: readonly GroupSpec[] = [
  {
    slug: 'courses',
    name: 'Courses',
    noun: 'course',
    api: '/api/v1/courses',
    omit: ['currency'],
    columns: ['title', 'status', 'price_amount', 'published_at'],
  },
  {
    slug: 'students',
    name: 'Students',
    noun: 'enrollment',
    api: '/api/v1/enrollments',
    columns: ['progress_percent', 'enrolled_at', 'expires_at', 'active'],
    title: (i) => `${nameOf(i, 'user') ?? 'Student'} in ${nameOf(i, 'course') ?? 'a course'}`,
  },
  {
    slug: 'lecturers',
    name: 'Lecturers',
    noun: 'lecturer',
    api: '/api/v1/lecturers',
    columns: ['name', 'headline', 'courses'],
  },
  {
    slug: 'coupons',
    name: 'Coupons',
    noun: 'coupon',
    api: '/api/v1/coupons',
    columns: ['code', 'kind', 'percent_off', 'amount_off', 'redemptions_count', 'expires_at', 'active'],
    defaults: { active: true },
  },
  {
    slug: 'membership-plans',
    name: 'Membership plans',
    noun: 'membership plan',
    api: '/api/v1/membership-plans',
    omit: ['currency'],
    columns: ['name', 'interval', 'price_amount', 'status'],
  },
  {
    slug: 'subscriptions',
    name: 'Subscriptions',
    noun: 'subscription',
    api: '/api/v1/subscriptions',
    columns: ['status', 'current_period_end', 'cancel_at_period_end'],
    title: (i) => `${nameOf(i, 'user') ?? 'Member'}: ${nameOf(i, 'plan') ?? 'plan'}`,
  },
  {
    slug: 'digital-products',
    name: 'Digital products',
    noun: 'digital product',
    api: '/api/v1/digital-products',
    omit: ['currency'],
    columns: ['title', 'price_amount', 'status', 'created_at'],
  },
  {
    slug: 'events',
    name: 'Events',
    noun: 'event',
    api: '/api/v1/events',
    columns: ['title', 'starts_at', 'status', 'visibility', 'registered_count'],
  },
  {
    slug: 'posts',
    name: 'Posts',
    noun: 'post',
    api: '/api/v1/posts',
    columns: ['title', 'status', 'published_at'],
  },
  {
    slug: 'comments',
    name: 'Comments',
    noun: 'comment',
    api: '/api/v1/comments',
    columns: ['author_name', 'target_type', 'created_at'],
    title: (i) => {
      const body = String(i.body ?? '');
      return body.length > 60 ? `${body.slice(0, 57)}…` : body || 'Comment';
    },
  },
  {
    slug: 'pages',
    name: 'Pages',
    noun: 'page',
    api: '/api/v1/pages',
    columns: ['title', 'slug', 'published'],
  },
  {
    slug: 'forms',
    name: 'Forms',
    noun: 'form',
    api: '/api/v1/forms',
    columns: ['title', 'submissions_count'],
  },
  { slug: 'school', name: 'School details', noun: 'school details', api: '/api/v1/school', single: true },
  { slug: 'appearance', name: 'Appearance', noun: 'appearance', api: '/api/v1/appearance', single: true },
];

const PARAM = '\\{\\w+\\}';

function literal(path: string): string {
  return path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The operation of kind `kind` at the path `pattern`; byte streams have no pages. */
function find(
  ops: readonly AdminOperation[],
  kind: OperationKind,
  pattern: string,
): AdminOperation | undefined {
  const re = new RegExp(`^${pattern}$`);
  return ops.find((o) => o.kind === kind && re.test(o.path) && !o.binary);
}

/** The actions at `pattern` + `/<verb>`, by verb. */
function actionsAt(ops: readonly AdminOperation[], pattern: string): ActionOperation[] {
  const re = new RegExp(`^${pattern}/([a-z-]+)$`);
  return ops.flatMap((op) => {
    const m = op.kind === 'action' && !op.binary ? re.exec(op.path) : null;
    return m ? [{ op, verb: m[1] }] : [];
  });
}

/** A group's operations, found in the catalogue by their declared kind and their path. */
function groupOf(spec: GroupSpec, ops: readonly AdminOperation[] = adminOperations): ConsoleGroup {
  const base = literal(spec.api);
  if (spec.single) {
    return {
      ...spec,
      get: find(ops, 'get', base),
      update: find(ops, 'update', base),
      actions: [],
      subLists: [],
    };
  }
  const one = `${base}/${PARAM}`;
  const nested = new RegExp(`^${one}/([a-z-]+)$`);
  const subLists: SubList[] = ops.flatMap((op) => {
    const m = op.kind === 'list' && !op.binary ? nested.exec(op.path) : null;
    return m ? [{ op, segment: m[1], rowActions: actionsAt(ops, `${one}/${m[1]}/${PARAM}`) }] : [];
  });
  return {
    ...spec,
    list: find(ops, 'list', base),
    get: find(ops, 'get', one),
    create: find(ops, 'create', base),
    update: find(ops, 'update', one),
    delete: find(ops, 'delete', one),
    actions: actionsAt(ops, one),
    subLists,
  };
}

/** The generated groups, in the navigation's order. */
export const CONSOLE_GROUPS: readonly ConsoleGroup[] = SPECS.map((s) => groupOf(s));

/** The item schema of a list (page) operation's output. */
export function itemSchema(op: AdminOperation | undefined): z.ZodObject | undefined {
  if (!op?.output) return undefined;
  const item = pageItems.get(op.output) ?? op.output;
  return 'shape' in item ? (item as z.ZodObject) : undefined;
}

/** Words a row links with: the group's own, else the item's title, name, code, number or email. */
export function titleOf(group: ConsoleGroup, item: Item): string {
  if (group.title) return group.title(item);
  for (const key of ['title', 'name', 'code', 'number', 'email', 'filename']) {
    const v = item[key];
    if (typeof v === 'string' && v.trim() !== '') return v;
  }
  return `${group.noun[0].toUpperCase()}${group.noun.slice(1)}`;
}

/**
 * Where the names behind an id field come from, for choices in forms and filters and for words
 * on the pages: the list operation, which field is the value, and how a row is named.
 */
interface ChoiceSource {
  readonly list: string;
  readonly value: string;
  readonly label: (item: Item) => string;
}

const COURSES: ChoiceSource = { list: 'courses.list', value: 'id', label: (i) => String(i.title) };
const LECTURERS: ChoiceSource = { list: 'lecturers.list', value: 'id', label: (i) => String(i.name) };
const FILES: ChoiceSource = { list: 'storage.list', value: 'id', label: (i) => String(i.filename) };
const MEMBERS: ChoiceSource = {
  list: 'members.list',
  value: 'user_id',
  label: (i) => `${i.name || i.email} (${i.email})`,
};
// What a coupon applies to: any product, named with its kind.
const PRODUCTS: readonly ChoiceSource[] = [
  { list: 'courses.list', value: 'id', label: (i) => `Course: ${i.title}` },
  { list: 'membership_plans.list', value: 'id', label: (i) => `Membership plan: ${i.name}` },
  { list: 'digital_products.list', value: 'id', label: (i) => `Digital product: ${i.title}` },
  { list: 'events.list', value: 'id', label: (i) => `Event: ${i.title}` },
];

/** Fields that hold ids of another group's items, by field name or by path (`applies_to.id`). */
const CHOICE_SOURCES: Readonly<Record<string, ChoiceSource | readonly ChoiceSource[]>> = {
  course_id: COURSES,
  course_ids: COURSES,
  lecturer_id: LECTURERS,
  lecturer_ids: LECTURERS,
  membership_plan_id: { list: 'membership_plans.list', value: 'id', label: (i) => String(i.name) },
  file_id: FILES,
  image_file_id: FILES,
  logo_file_id: FILES,
  user_id: MEMBERS,
  author_user_id: MEMBERS,
  'applies_to.id': PRODUCTS,
};

/** Where the names of a field's ids come from: by its whole path, else by its own name. */
export function sourcesOf(key: string): readonly ChoiceSource[] | undefined {
  const path = key.split('.').filter((p) => !/^\d+$/.test(p));
  const found = CHOICE_SOURCES[path.join('.')] ?? (path.length > 1 ? undefined : CHOICE_SOURCES[path[0]]);
  const last =
    path.length > 1 && path[path.length - 1] !== 'id' ? CHOICE_SOURCES[path[path.length - 1]] : undefined;
  const source = found ?? last;
  if (!source) return undefined;
  return Array.isArray(source) ? source : [source as ChoiceSource];
}

/** The first page of a list operation is enough for choices (at most this many). */
export const CHOICES_LIMIT = 100;
