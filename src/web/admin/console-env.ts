/**
 * The console's typed request context and the middleware that fills it: who is signed in (else
 * the way to /login), the form of every POST checked against the session's CSRF token once, and,
 * per route, the area of the school in the path for the people the route admits.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import { bodyLimits, isUploadPath, type UploadPath } from '../../http/body-limit.ts';
import type { AppContext, AppEnv } from '../../http/context.ts';
import { CSRF_FIELD, verifyCsrf } from '../../http/sessions.ts';
import { isFormRequest } from '../../oauth/form-body.ts';
import type { Viewer } from '../shared/page-kit.ts';
import { refusals } from '../shared/refusal.ts';
import { signedInViewer } from '../shared/viewer.ts';
import { type Admits, type Area, staffArea } from './area.ts';

/** A POSTed form: its text fields, and the files of a multipart form. */
interface ConsoleForm {
  readonly fields: URLSearchParams;
  readonly files: ReadonlyMap<string, File>;
}

/** The console's Hono environment: the app's variables and what the console's middleware sets. */
export interface ConsoleEnv {
  Variables: AppEnv['Variables'] & {
    /** The services (set first, with the body limits, for every console request). */
    app: AppContext;
    /** The signed-in person. */
    viewer: Viewer;
    /** The school of the path as this person may open it (set by `admit` on each route). */
    area: Area;
    /** A POST's form, CSRF-checked (absent on GET). */
    form?: ConsoleForm;
  };
}

/** A console request's context. */
export type ConsoleContext = Context<ConsoleEnv>;

/**
 * The console's forms that carry files (multipart), by their whole path: the files page and the
 * curriculum editor's two lecture forms. They take the upload limit; every other console form is
 * url-encoded and takes the body limit.
 */
export const CONSOLE_UPLOAD_PATHS: readonly UploadPath[] = [
  /^\/admin\/[^/]+\/files$/,
  /^\/admin\/[^/]+\/courses\/[^/]+\/curriculum\/sections\/[^/]+\/lectures$/,
  /^\/admin\/[^/]+\/courses\/[^/]+\/curriculum\/lectures\/[^/]+\/edit$/,
];

/**
 * The console's own body limits (the app leaves its paths to it): the upload forms to the upload
 * limit, every other form to the body limit, inside the console, so a refusal is the console's
 * own 413 page (its `onError`).
 */
export function consoleBodyLimits(ctx: AppContext): MiddlewareHandler<ConsoleEnv> {
  const limits = bodyLimits(ctx.config.bodyLimitBytes, ctx.config.uploadLimitBytes, CONSOLE_UPLOAD_PATHS);
  return createMiddleware<ConsoleEnv>(async (c, next) => {
    c.set('app', ctx);
    return limits(c, next);
  });
}

/** A multipart body as text fields and files; a body that does not parse is refused. */
async function multipartForm(c: ConsoleContext): Promise<ConsoleForm> {
  const type = c.req.header('content-type') ?? '';
  if (!/^multipart\/form-data\s*;\s*boundary=/i.test(type)) throw refusals.unsupportedForm(true);
  let parsed: Record<string, string | File | (string | File)[]>;
  try {
    parsed = await c.req.parseBody({ all: true });
  } catch {
    throw refusals.formNotReadable();
  }
  const fields = new URLSearchParams();
  const files = new Map<string, File>();
  for (const [name, value] of Object.entries(parsed)) {
    for (const one of Array.isArray(value) ? value : [value]) {
      if (typeof one === 'string') fields.append(name, one);
      else files.set(name, one);
    }
  }
  return { fields, files };
}

/** A url-encoded body. */
async function urlEncodedForm(c: ConsoleContext): Promise<ConsoleForm> {
  if (!isFormRequest(c)) throw refusals.unsupportedForm();
  return { fields: new URLSearchParams(await c.req.text()), files: new Map() };
}

/**
 * Every console request: the services, the signed-in viewer, and for a POST its form, checked
 * once against the session's synchronizer token (OWASP CSRF cheat sheet), so no handler can
 * forget it. The upload paths take multipart forms, every other path url-encoded ones.
 */
export function consoleFrame(ctx: AppContext): MiddlewareHandler<ConsoleEnv> {
  return createMiddleware<ConsoleEnv>(async (c, next) => {
    const viewer = await signedInViewer(ctx, c, '/admin');
    c.set('viewer', viewer);
    if (c.req.method === 'POST') {
      const upload = isUploadPath(CONSOLE_UPLOAD_PATHS, c.req.path);
      const form = upload ? await multipartForm(c) : await urlEncodedForm(c);
      const token = form.fields.get(CSRF_FIELD) ?? undefined;
      if (!verifyCsrf(ctx, c, token, viewer.session)) throw refusals.formExpired();
      c.set('form', form);
    }
    await next();
  });
}

/**
 * The route admits `admits` (the school's operators, or its lecturers too for the pages of the
 * courses they teach): sets the area of the path's school, or refuses (the same 403 for another
 * school's id and an unknown one, so the console does not tell which schools exist).
 */
function admit(admits: Admits): MiddlewareHandler<ConsoleEnv> {
  return createMiddleware<ConsoleEnv>(async (c, next) => {
    const area = await staffArea(c.var.app, c.var.viewer, c.req.param('school') ?? '', admits);
    c.set('area', area);
    await next();
  });
}

/** The school's owners and admins only. */
export const operators = admit('operators');
/** Owners, admins, and lecturers (whose every operation passes the teaching rule). */
export const staff = admit('staff');

/** The POSTed form's text fields (a handler of a POST route; the frame has checked them). */
export function postedForm(c: ConsoleContext): URLSearchParams {
  const form = c.var.form;
  if (!form) throw new Error('postedForm read outside a POST');
  return form.fields;
}

/** A file of the POSTed multipart form, or undefined when the person chose none. */
export function postedFile(c: ConsoleContext, name: string): File | undefined {
  const file = c.var.form?.files.get(name);
  return file && (file.size > 0 || file.name !== '') ? file : undefined;
}
