/**
 * How the operator pages run an admin operation: the same catalogue entry, validation and
 * handler as the REST API and the MCP tools (admin/invoke.ts), for the person signed in to the
 * console instead of a token. What they may run is what their standing allows
 * (domain/school/standing.ts), asked in one place here.
 */
import type { AdminOperation } from '../../admin/define-operation.ts';
import { adminOperations } from '../../admin/catalogue.ts';
import { type InvokeResult, invokeOperation, type RawInput } from '../../admin/invoke.ts';
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
export function consolePrincipal(ctx: AppContext, area: Area): Principal {
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

/**
 * Runs the operation `name` for the person in the console, with the REST API's validation and
 * checks (`ifMatch` as REST's `If-Match`). Refusals are thrown as the API's problems (field
 * errors name `body.<field>` as the API does), for the page to show beside its fields.
 */
export async function runForConsole(
  ctx: AppContext,
  area: Area,
  name: string,
  raw: RawInput,
  options: { ifMatch?: string } = {},
): Promise<InvokeResult> {
  const op = consoleOperation(name);
  const principal = consolePrincipal(ctx, area);
  if (!principal.scopes.has(op.scope)) throw problems.forbidden('Your role at this school does not allow this.');
  return invokeOperation(ctx, principal, op, raw, options);
}
