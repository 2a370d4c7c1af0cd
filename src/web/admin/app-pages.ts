/**
 * `/admin/<school>/apps`: the school's OAuth applications (the MCP connections beta). A new client
 * secret travels to the page the redirect leads to as a one-time flash on the session
 * (http/flash.ts), never in the URL.
 */
import { Hono } from 'hono';
import { createMiddleware } from 'hono/factory';
import { putFlash, takeFlash } from '../../http/flash.ts';
import {
  createMemberApp,
  deleteMemberApp,
  getMemberApp,
  listMemberApps,
  MEMBER_APP_SCOPES,
  type MemberApp,
  rotateMemberAppSecret,
  TooManyAppsError,
  updateMemberApp,
  validateMemberAppInput,
} from '../../oauth/clients/member-apps.ts';
import { listSchoolConnections } from '../../oauth/grants/connected-apps.ts';
import { sendAreaPage } from '../shared/page-kit.ts';
import { PageRefusal } from '../shared/refusal.ts';
import {
  appListPage,
  appPage,
  deleteAppPage,
  newAppPage,
  type SecretFlash,
  secretGonePage,
  secretPage,
} from './app-views.ts';
import { type Area, areaPath } from './area.ts';
import { type ConsoleContext, type ConsoleEnv, operators, postedForm } from './console-env.ts';

const secretFlash = (clientId: string) => `member-app-secret:${clientId}`;

const appPathOf = (area: Area, clientId: string, rest = '') =>
  areaPath(area.school.id, `/apps/${encodeURIComponent(clientId)}${rest}`);

/** What the security log records of a change to an app. */
function formValues(fields: URLSearchParams) {
  return {
    name: (fields.get('name') ?? '').slice(0, 1000),
    redirectUris: (fields.get('redirect_uris') ?? '').slice(0, 30_000),
    authMethod: fields.get('auth_method') ?? '',
    scopes: fields.getAll('scope').slice(0, 50),
  };
}

function appValues(app: MemberApp) {
  return {
    name: app.name,
    redirectUris: app.redirectUris.join('\n'),
    authMethod: app.authMethod,
    scopes: app.scopes,
  };
}

const appNotFound = (area: Area) =>
  new PageRefusal(404, 'App not found', 'This school has no such app.', {
    links: [{ href: areaPath(area.school.id, '/apps'), label: 'Back to OAuth applications' }],
  });

/**
 * New apps need the MCP connections beta on. Existing ones stay listed, editable and deletable
 * while it is off: they simply cannot be authorized (oauth/authorize/authorize-request.ts).
 */
const creating = createMiddleware<ConsoleEnv>(async (c, next) => {
  const { area } = c.var;
  if (!area.developers) {
    throw new PageRefusal(
      409,
      'MCP connections are off',
      'Turn on the MCP connections beta feature in Settings to create OAuth applications.',
      { links: [{ href: areaPath(area.school.id), label: 'Go to Settings' }] },
    );
  }
  await next();
});

/** The app of the path, or the 404 refusal. */
async function appOf(c: ConsoleContext): Promise<MemberApp> {
  const { area, app } = c.var;
  const found = await getMemberApp(app.db, area.school.id, c.req.param('app') ?? '');
  if (!found) throw appNotFound(area);
  return found;
}

async function listApps(c: ConsoleContext): Promise<Response> {
  const { area, app } = c.var;
  const apps = await listMemberApps(app.db, area.school.id);
  const title = `${area.school.name} · OAuth applications`;
  return sendAreaPage(c, 200, title, appListPage(area, apps, c.req.query('done')));
}

async function newAppForm(c: ConsoleContext): Promise<Response> {
  // Least privilege by default: identity and read; the operator ticks write if the app needs it.
  const scopes = MEMBER_APP_SCOPES.filter((s) => !s.endsWith(':write'));
  const values = { name: '', redirectUris: '', authMethod: 'none', scopes };
  return sendAreaPage(c, 200, 'Create an OAuth application', newAppPage(c.var.area, values, {}));
}

async function createApp(c: ConsoleContext): Promise<Response> {
  const { area, app } = c.var;
  const values = formValues(postedForm(c));
  const checked = validateMemberAppInput(values);
  if (!checked.ok) {
    return sendAreaPage(c, 422, 'Create an OAuth application', newAppPage(area, values, checked.errors));
  }
  const created = await createMemberApp(app.db, {
    ...checked.value,
    schoolId: area.school.id,
    createdByUserId: area.viewer.user.id,
  }).catch((err: unknown) => {
    throw err instanceof TooManyAppsError ? new PageRefusal(409, 'Too many apps', err.message) : err;
  });
  const clientId = created.app.clientId;
  if (!created.clientSecret) return c.redirect(appPathOf(area, clientId, '?done=created'), 303);
  const flash: SecretFlash = { secret: created.clientSecret, rotated: false, previousValidUntil: null };
  await putFlash(app, area.viewer.session, secretFlash(clientId), flash);
  return c.redirect(appPathOf(area, clientId, '/secret'), 303);
}

async function showApp(c: ConsoleContext): Promise<Response> {
  const { area, app } = c.var;
  const found = await appOf(c);
  // A count of connections revoked by the edit this page follows; only digits are read.
  const revoked = /^[0-9]{1,4}$/.test(c.req.query('revoked') ?? '') ? Number(c.req.query('revoked')) : 0;
  const view = appPage(area, found, { values: appValues(found), errors: {} }, c.req.query('done'), {
    revokedGrants: revoked,
    overlapSeconds: app.config.clientSecretOverlapSeconds,
  });
  return sendAreaPage(c, 200, found.name, view);
}

async function showSecret(c: ConsoleContext): Promise<Response> {
  const { area, app } = c.var;
  const found = await appOf(c);
  const flash = await takeFlash<SecretFlash>(app, area.viewer.session, secretFlash(found.clientId));
  if (!flash) return sendAreaPage(c, 410, 'Secret already shown', secretGonePage(area, found));
  const title = flash.rotated ? 'New client secret' : `${found.name} is ready`;
  return sendAreaPage(c, 200, title, secretPage(area, found, flash));
}

async function updateApp(c: ConsoleContext): Promise<Response> {
  const { area, app } = c.var;
  const found = await appOf(c);
  const values = { ...formValues(postedForm(c)), authMethod: found.authMethod };
  const checked = validateMemberAppInput(values);
  if (!checked.ok) {
    const view = appPage(area, found, { values, errors: checked.errors }, undefined, {
      overlapSeconds: app.config.clientSecretOverlapSeconds,
    });
    return sendAreaPage(c, 422, found.name, view);
  }
  const result = await updateMemberApp(app.db, area.school.id, found.clientId, checked.value);
  if (!result) throw appNotFound(area);
  const revoked = result.revokedGrants > 0 ? `&revoked=${result.revokedGrants}` : '';
  return c.redirect(appPathOf(area, found.clientId, `?done=updated${revoked}`), 303);
}

async function rotateSecret(c: ConsoleContext): Promise<Response> {
  const { area, app } = c.var;
  const found = await appOf(c);
  const overlap = app.config.clientSecretOverlapSeconds;
  const rotated = await rotateMemberAppSecret(app.db, area.school.id, found.clientId, overlap);
  if (!rotated) throw new PageRefusal(400, 'No secret to rotate', 'Public apps have no client secret.');
  const flash: SecretFlash = {
    secret: rotated.secret,
    rotated: true,
    previousValidUntil: rotated.previousValidUntil,
  };
  await putFlash(app, area.viewer.session, secretFlash(found.clientId), flash);
  return c.redirect(appPathOf(area, found.clientId, '/secret'), 303);
}

async function askDeleteApp(c: ConsoleContext): Promise<Response> {
  const { area, app } = c.var;
  const found = await appOf(c);
  const connections = (await listSchoolConnections(app.db, area.school.id)).filter(
    (conn) => conn.clientId === found.clientId,
  ).length;
  return sendAreaPage(c, 200, `Delete ${found.name}?`, deleteAppPage(area, found, connections));
}

async function deleteApp(c: ConsoleContext): Promise<Response> {
  const { area, app } = c.var;
  const found = await appOf(c);
  await deleteMemberApp(app.db, area.school.id, found.clientId);
  return c.redirect(areaPath(area.school.id, '/apps?done=deleted'), 303);
}

/** The OAuth applications routes. */
export function appRoutes(): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  app.get('/:school/apps', operators, listApps);
  app.get('/:school/apps/new', operators, creating, newAppForm);
  app.post('/:school/apps', operators, creating, createApp);
  app.get('/:school/apps/:app', operators, showApp);
  app.get('/:school/apps/:app/secret', operators, showSecret);
  app.post('/:school/apps/:app', operators, updateApp);
  app.post('/:school/apps/:app/rotate-secret', operators, rotateSecret);
  app.get('/:school/apps/:app/delete', operators, askDeleteApp);
  app.post('/:school/apps/:app/delete', operators, deleteApp);
  return app;
}
