/**
 * The narrowing rule of a grant that reaches only the courses the person teaches
 * (domain/school/standing.ts `ROLE_GRANTS`, reach `taught_courses`), for each admin resource
 * group, in one place. A request naming a course, or a section, lecture or enrollment of one,
 * reaches it only when the course is theirs; a course they do not teach is not found, as
 * another school's is. Lists are narrowed as their group says; a group whose records belong to
 * no course (the school's files) is reached only by adding to it.
 */
import { getLecture, getSection } from '../domain/catalog/curriculum.ts';
import { getEnrollment } from '../domain/learning/enrollments.ts';
import { reachOf, type TaughtCourses } from '../domain/school/standing.ts';
import { problems } from '../errors/problem-error.ts';
import type { Db } from '../store/database.ts';
import type { Principal } from './principal.ts';

/** What the rule reads of an operation: its scope, method and path template (`/courses/{course_id}`). */
export interface OperationShape {
  readonly scope: string;
  readonly method: string;
  readonly path: string;
}

/** What the rule reads of, and may change in, a request. */
export interface NarrowedRequest {
  params?: Record<string, string>;
  query?: Record<string, string>;
}

type Query = Record<string, string>;

/** How one group is reached within the courses taught. */
interface GroupRule {
  /** Its records belong to a course, named by the path (directly, or through a section, lecture or enrollment). */
  readonly byCourse: boolean;
  /** How its list is narrowed; without one, the group lists nothing within the reach. */
  readonly list?: (query: Query, taught: TaughtCourses) => Query;
  /** Adding a record that names no course (an upload) is within the reach. */
  readonly adds?: true;
}

const notTaught = () => problems.notFound('No such course among the courses you teach.');
const notAllowed = () => problems.forbidden('Your role at this school does not allow this.');

const RULES: Readonly<Record<string, GroupRule>> = {
  // The list is the lecturer's own, whatever lecturer was asked for; no profile lists none.
  courses: { byCourse: true, list: (q, t) => ({ ...q, lecturer_id: t.lecturerId ?? 'lec_none' }) },
  curriculum: { byCourse: true },
  // Enrollments are listed one taught course at a time.
  students: {
    byCourse: true,
    list: (q, t) => {
      if (q.course_id === undefined || !t.courseIds.has(q.course_id)) throw notTaught();
      return q;
    },
  },
  // No stored file belongs to a course: lecture files are uploaded, the school's are never read.
  storage: { byCourse: false, adds: true },
};

/** The course a record of the path belongs to, read in the school (another school's id is not found). */
const COURSE_OF: Readonly<Record<string, (db: Db, school: string, id: string) => Promise<string>>> = {
  course_id: async (_db, _school, id) => id,
  section_id: async (db, school, id) => (await getSection(db, school, id)).courseId,
  lecture_id: async (db, school, id) => (await getLecture(db, school, id)).courseId,
  enrollment_id: async (db, school, id) => (await getEnrollment(db, school, id)).courseId,
};

const pathParams = (op: OperationShape) => [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);

/** What an operation is to the rule: a record of a course, another record, a list, or an addition. */
function kindOf(op: OperationShape): 'course_record' | 'other_record' | 'list' | 'add' {
  const params = pathParams(op);
  if (params.some((p) => p in COURSE_OF)) return 'course_record';
  if (params.length > 0) return 'other_record';
  return op.method === 'GET' ? 'list' : 'add';
}

const groupOf = (op: OperationShape) => op.scope.slice(0, op.scope.indexOf(':'));

/** Whether the principal's grant for the operation reaches only the courses they teach. */
function narrowed(principal: Principal, op: OperationShape): boolean {
  return reachOf(principal.roles, op.scope) === 'taught_courses';
}

/** Whether the narrowing rule lets the principal run this operation on some record at all. */
export function narrowingAdmits(principal: Principal, op: OperationShape): boolean {
  if (!narrowed(principal, op)) return true;
  const rule = RULES[groupOf(op)];
  if (!rule) return false;
  switch (kindOf(op)) {
    case 'course_record':
      return rule.byCourse;
    case 'list':
      return rule.list !== undefined;
    case 'add':
      return rule.adds === true;
    default:
      return false;
  }
}

/**
 * What a request becomes under the principal's grant: unchanged when it reaches the whole school;
 * within the courses they teach, a course that is not theirs is not found and a list is narrowed
 * (throws the refusal as the API's problem).
 */
export async function narrowRequest<R extends NarrowedRequest>(
  db: Db,
  principal: Principal,
  op: OperationShape,
  request: R,
): Promise<R> {
  if (!narrowed(principal, op)) return request;
  if (!narrowingAdmits(principal, op)) throw notAllowed();
  const taught = principal.taught ?? { lecturerId: null, courseIds: new Set<string>() };
  const kind = kindOf(op);
  if (kind === 'list') {
    const list = RULES[groupOf(op)].list as NonNullable<GroupRule['list']>;
    return { ...request, query: list(request.query ?? {}, taught) };
  }
  if (kind === 'course_record') {
    const params = request.params ?? {};
    const name = pathParams(op).find((p) => p in COURSE_OF) as string;
    const course = await COURSE_OF[name](db, principal.schoolId, params[name] ?? '');
    if (!taught.courseIds.has(course)) throw notTaught();
  }
  return request;
}
