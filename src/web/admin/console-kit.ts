/**
 * How the operator pages run an admin operation: the same catalogue entry, validation and
 * handler as the REST API and the MCP tools (admin/invoke.ts), for the person signed in to the
 * console instead of a token. What they may run is what their roles grant
 * (domain/school/standing.ts), asked of the same decision the API and MCP ask.
 */

import { adminOperations } from '../../admin/catalogue.ts';
import type { AdminOperation } from '../../admin/define-operation.ts';
import {
  type InvokeResult,
  invokeIdempotently,
  invokeOperation,
  operationRequirement,
  type RawInput,
} from '../../admin/invoke.ts';
import { problems } from '../../errors/problem-error.ts';
import type { AppContext } from '../../http/context.ts';
import { decide, grantedScopes } from '../../resource/authorization.ts';
import { narrowingAdmits, narrowRequest } from '../../resource/narrowing.ts';
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
 * The person in the console as the operations see a caller: their user, school and roles, the
 * operator scopes their roles grant (domain/school/standing.ts: never a scope they could not be
 * given), what they teach when their grants reach only that, and no client or token (`clientId`
 * is empty: a page, not an app; the audit trail records the person alone).
 */
function consolePrincipal(area: Area): Principal {
  return {
    tokenHash: '',
    userId: area.viewer.user.id,
    schoolId: area.school.id,
    roles: area.roles,
    clientId: '',
    client: { kind: 'vendor', reviewed: true, allowedScopes: [] },
    grantId: '',
    audience: 'operator',
    scopes: grantedScopes(area.roles),
    resource: '',
    expiresAt: Number.MAX_SAFE_INTEGER,
    user: { email: area.viewer.user.email, name: area.viewer.user.name },
    taught: area.teaching,
  };
}

/**
 * Whether the person may run `op` at all: the one decision (resource/authorization.ts), as the
 * REST API and MCP ask it, and the narrowing rule of their grant (resource/narrowing.ts).
 */
function allows(principal: Principal, op: AdminOperation): boolean {
  return decide(principal, operationRequirement(op)).allowed && narrowingAdmits(principal, op);
}

/** Whether the person in the console may run `name` at all (lecturers: within their courses). */
export function mayRun(area: Area, name: string): boolean {
  return allows(consolePrincipal(area), consoleOperation(name));
}

/**
 * Runs the operation `name` for the person in the console, with the REST API's validation and
 * checks (`ifMatch` as REST's `If-Match`); a lecturer's request is first narrowed to the courses
 * they teach (resource/narrowing.ts). Refusals are thrown as the API's problems (field
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
  const principal = consolePrincipal(area);
  if (!allows(principal, op)) throw problems.forbidden('Your role at this school does not allow this.');
  raw = await narrowRequest(ctx.db, principal, op, raw);
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
