/**
 * How the operator pages run an admin operation: the same catalogue entry, validation and
 * handler as the REST API and the MCP tools (admin/invoke.ts), for the person signed in to the
 * console instead of a token. What they may run is what their standing allows
 * (domain/school/standing.ts), asked in one place here.
 */

import { adminOperations } from '../../admin/catalogue.ts';
import type { AdminOperation } from '../../admin/define-operation.ts';
import { type InvokeResult, invokeIdempotently, invokeOperation, type RawInput } from '../../admin/invoke.ts';
import { getLecture, getSection } from '../../domain/catalog/curriculum.ts';
import { getEnrollment } from '../../domain/learning/enrollments.ts';
import { TEACHING_OPERATIONS } from '../../domain/school/standing.ts';
import { problems } from '../../errors/problem-error.ts';
import type { AppContext } from '../../http/context.ts';
import { OPERATOR_SCOPES } from '../../oauth/scopes.ts';
import type { Principal } from '../../resource/principal.ts';
import type { Area } from './area.ts';

const BY_NAME = new Map(adminOperations.map((op) => [op.name, op]));

/** The catalogue entry of `name` (`courses.create`); a typo is a programming error. */
export function consoleOperation(name: string): AdminOperation {
  const op = BY_NAME.get(name);
  if (!op) throw new Error(`no admin operation ${name}`);
  return op;
}

/**
 * The person in the console as the operations see a caller: their user, school and roles, every
 * operator scope their standing gives, and no client (`clientId` is empty: a page, not an app;
 * the audit trail records the person alone).
 */
function consolePrincipal(ctx: AppContext, area: Area): Principal {
  return {
    tokenHash: '',
    userId: area.viewer.user.id,
    schoolId: area.school.id,
    roles: area.roles,
    clientId: '',
    client: { kind: 'vendor', reviewed: true, allowedScopes: null },
    grantId: '',
    audience: 'operator',
    scopes: new Set(OPERATOR_SCOPES),
    resource: ctx.config.baseUrl,
    expiresAt: Number.MAX_SAFE_INTEGER,
    user: { email: area.viewer.user.email, name: area.viewer.user.name },
  };
}

const notTaught = () => problems.notFound('No such course among the courses you teach.');

/**
 * The course a teaching operation touches, named by its path: a course, or the course of a
 * section, lecture or enrollment (read in the school, so another school's id is simply not found).
 */
async function courseOfRequest(ctx: AppContext, area: Area, params: Record<string, string>) {
  const school = area.school.id;
  if (params.course_id) return params.course_id;
  if (params.section_id) return (await getSection(ctx.db, school, params.section_id)).courseId;
  if (params.lecture_id) return (await getLecture(ctx.db, school, params.lecture_id)).courseId;
  if (params.enrollment_id) return (await getEnrollment(ctx.db, school, params.enrollment_id)).courseId;
  return undefined;
}

/**
 * What a lecturer's request may become (domain/school/standing.ts `TEACHING_OPERATIONS`): only
 * those operations, only on a course they teach, lists narrowed to their courses. A course they
 * do not teach is not found, as another school's is. Returns the input to run.
 */
async function taughtInput(
  ctx: AppContext,
  area: Area,
  op: AdminOperation,
  raw: RawInput,
): Promise<RawInput> {
  const teaching = area.teaching;
  if (!teaching) return raw;
  if (!TEACHING_OPERATIONS.has(op.name)) throw problems.forbidden('Lecturers cannot do this here.');
  const course = await courseOfRequest(ctx, area, raw.params ?? {});
  if (course !== undefined && !teaching.courseIds.has(course)) throw notTaught();
  if (op.name === 'courses.list') {
    // No lecturer profile: no course is theirs, and an id no lecturer has lists none.
    return { ...raw, query: { ...raw.query, lecturer_id: teaching.lecturerId ?? 'lec_none' } };
  }
  if (op.name === 'students.list_enrollments') {
    const wanted = raw.query?.course_id;
    if (wanted === undefined || !teaching.courseIds.has(wanted)) throw notTaught();
  }
  return raw;
}

/** Whether the person in the console may run `name` at all (lecturers: the teaching operations). */
export function mayRun(area: Area, name: string): boolean {
  consoleOperation(name);
  return !area.teaching || TEACHING_OPERATIONS.has(name);
}

/**
 * Runs the operation `name` for the person in the console, with the REST API's validation and
 * checks (`ifMatch` as REST's `If-Match`); a lecturer's request first passes the teaching rule
 * (`taughtInput`). Refusals are thrown as the API's problems (field
 * errors name `body.<field>` as the API does), for the page to show beside its fields.
 * `idempotencyKey` (a create form's one-time key) runs it as REST runs an `Idempotency-Key`
 * request: once, and a repeat answers with what the first made. The key is the person's own
 * (prefixed with their user id), bound to the operation's API path.
 */
export async function runForConsole(
  ctx: AppContext,
  area: Area,
  name: string,
  raw: RawInput,
  options: { ifMatch?: string; idempotencyKey?: string } = {},
): Promise<InvokeResult> {
  const op = consoleOperation(name);
  const principal = consolePrincipal(ctx, area);
  if (!principal.scopes.has(op.scope))
    throw problems.forbidden('Your role at this school does not allow this.');
  raw = await taughtInput(ctx, area, op, raw);
  if (options.idempotencyKey === undefined) return invokeOperation(ctx, principal, op, raw, options);
  const path = op.path.replace(/\{(\w+)\}/g, (_, k: string) => encodeURIComponent(raw.params?.[k] ?? ''));
  const key = `console:${area.viewer.user.id}:${options.idempotencyKey}`;
  const { result } = await invokeIdempotently(ctx, principal, op, raw, {
    key,
    path,
    ifMatch: options.ifMatch,
  });
  return result;
}
