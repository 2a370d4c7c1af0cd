/**
 * `/admin`: a school's operator area (product.md §8). Every page needs a signed-in owner or admin
 * of the school in the path; every change is a CSRF-checked POST answered by a redirect
 * (POST-redirect-GET), so a refresh never repeats it. A new client secret travels to the page
 * the redirect leads to as a one-time flash on the session (http/flash.ts), never in the URL.
 */
import { type Context, Hono } from 'hono';
import { switchBeta } from '../../admin/school-actions.ts';
import { findMembership } from '../../domain/school/memberships.ts';
import type { AppContext, AppEnv } from '../../http/context.ts';
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
import { listSchoolConnections, revokeSchoolConnection } from '../../oauth/grants/connected-apps.ts';
import { messagePage, readForm, requireViewer, sendAreaPage } from '../shared/page-kit.ts';
import {
  appListPage,
  appPage,
  deleteAppPage,
  newAppPage,
  type SecretFlash,
  secretGonePage,
  secretPage,
} from './app-views.ts';
import { type Area, areaPath, forbidden, operatedSchools, operatorPage, staffPage } from './area.ts';
import { connectedPage, revokeConnectionPage, schoolPickerPage, settingsPage } from './views.ts';

type Handler = (c: Context<AppEnv>, area: Area) => Promise<Response>;

/** The operator area's pages, mounted at `/admin`. */
export function createAdminPagesApp(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  // Signed in, operator of the school in the path; else /login or the 403 page.
  const operator = (handler: Handler) => operatorPage(ctx, handler);
  // New apps need the MCP connections beta on. Existing ones stay listed, editable and
  // deletable while it is off: they simply cannot be authorized (oauth/authorize/authorize-request.ts).
  const creating = (handler: Handler) =>
    operator(async (c, area) => {
      if (!area.developers) {
        return messagePage(
          c,
          409,
          'MCP connections are off',
          'Turn on the MCP connections beta feature in Settings to create OAuth applications.',
          { href: areaPath(area.school.id), label: 'Go to Settings' },
        );
      }
      return handler(c, area);
    });
  const secretFlash = (clientId: string) => `member-app-secret:${clientId}`;
  const form = async (c: Context<AppEnv>, area: Area) => readForm(ctx, c, area.viewer);
  const done = (c: Context<AppEnv>) => c.req.query('done');
  const appNotFound = (c: Context<AppEnv>, area: Area) =>
    messagePage(c, 404, 'App not found', 'This school has no such app.', {
      href: areaPath(area.school.id, '/apps'),
      label: 'Back to OAuth applications',
    });

  app.get('/admin', async (c) => {
    const viewer = await requireViewer(ctx, c, '/admin');
    if (viewer instanceof Response) return viewer;
    const schools = await operatedSchools(ctx, viewer);
    const wanted = c.req.query('school');
    if (wanted) {
      return schools.some((s) => s.id === wanted) ? c.redirect(areaPath(wanted), 303) : forbidden(c);
    }
    if (schools.length === 0) return forbidden(c);
    if (schools.length === 1) return c.redirect(areaPath(schools[0].id), 302);
    return sendAreaPage(c, 200, 'Admin', schoolPickerPage(schools));
  });

  app.get(
    '/admin/:school',
    staffPage(ctx, async (c, area) => {
      // A lecturer's console is the courses they teach.
      if (area.teaching) return c.redirect(areaPath(area.school.id, '/courses'), 302);
      const count = (await listMemberApps(ctx.db, area.school.id)).length;
      return sendAreaPage(c, 200, `${area.school.name} · Settings`, settingsPage(area, done(c), count));
    }),
  );

  app.post(
    '/admin/:school/beta',
    operator(async (c, area) => {
      const fields = await form(c, area);
      if (fields instanceof Response) return fields;
      const enabled = fields.get('enabled');
      if (enabled !== 'on' && enabled !== 'off') {
        return messagePage(c, 400, 'Invalid request', 'Choose to turn the feature on or off.');
      }
      const { user } = area.viewer;
      const membership = await findMembership(ctx.db, area.school.id, user.id);
      const actor = { userId: user.id, roles: membership?.roles ?? [], requestId: c.get('requestId') };
      const scope = { app: ctx, db: ctx.db, schoolId: area.school.id, actor };
      await switchBeta(scope, 'mcp_connections', enabled === 'on');
      return c.redirect(areaPath(area.school.id, `?done=beta-${enabled}`), 303);
    }),
  );

  app.get(
    '/admin/:school/connected',
    operator(async (c, area) => {
      const connections = await listSchoolConnections(ctx.db, area.school.id);
      return sendAreaPage(
        c,
        200,
        `${area.school.name} · Connected apps`,
        connectedPage(area, connections, done(c)),
      );
    }),
  );

  app.get(
    '/admin/:school/connected/revoke',
    operator(async (c, area) => {
      const key = c.req.query('grant') ?? '';
      const found = (await listSchoolConnections(ctx.db, area.school.id)).find((conn) => conn.key === key);
      if (!found) return c.redirect(areaPath(area.school.id, '/connected?done=not-found'), 303);
      return sendAreaPage(c, 200, `Revoke ${found.clientName}?`, revokeConnectionPage(area, found));
    }),
  );

  app.post(
    '/admin/:school/connected/revoke',
    operator(async (c, area) => {
      const fields = await form(c, area);
      if (fields instanceof Response) return fields;
      const grantId = fields.get('grant') ?? '';
      const revoked = await revokeSchoolConnection(ctx.db, area.school.id, grantId);
      return c.redirect(
        areaPath(area.school.id, `/connected?done=${revoked > 0 ? 'revoked' : 'not-found'}`),
        303,
      );
    }),
  );

  app.get(
    '/admin/:school/apps',
    operator(async (c, area) => {
      const apps = await listMemberApps(ctx.db, area.school.id);
      return sendAreaPage(
        c,
        200,
        `${area.school.name} · OAuth applications`,
        appListPage(area, apps, done(c)),
      );
    }),
  );

  app.get(
    '/admin/:school/apps/new',
    creating(async (c, area) => {
      // Least privilege by default: identity and read; the operator ticks write if the app needs it.
      const scopes = MEMBER_APP_SCOPES.filter((s) => !s.endsWith(':write'));
      const values = { name: '', redirectUris: '', authMethod: 'none', scopes };
      return sendAreaPage(c, 200, 'Create an OAuth application', newAppPage(area, values, {}));
    }),
  );

  app.post(
    '/admin/:school/apps',
    creating(async (c, area) => {
      const fields = await form(c, area);
      if (fields instanceof Response) return fields;
      const values = formValues(fields);
      const checked = validateMemberAppInput(values);
      if (!checked.ok) {
        return sendAreaPage(c, 422, 'Create an OAuth application', newAppPage(area, values, checked.errors));
      }
      try {
        const created = await createMemberApp(ctx.db, {
          ...checked.value,
          schoolId: area.school.id,
          createdByUserId: area.viewer.user.id,
        });
        const clientId = created.app.clientId;
        if (!created.clientSecret) {
          return c.redirect(appPathOf(area, clientId, '?done=created'), 303);
        }
        const flash: SecretFlash = { secret: created.clientSecret, rotated: false, previousValidUntil: null };
        await putFlash(ctx, area.viewer.session, secretFlash(clientId), flash);
        return c.redirect(appPathOf(area, clientId, '/secret'), 303);
      } catch (err) {
        if (err instanceof TooManyAppsError) return messagePage(c, 409, 'Too many apps', err.message);
        throw err;
      }
    }),
  );

  const withApp = (handler: (c: Context<AppEnv>, area: Area, app: MemberApp) => Promise<Response>) =>
    operator(async (c, area) => {
      const found = await getMemberApp(ctx.db, area.school.id, c.req.param('app') ?? '');
      return found ? handler(c, area, found) : appNotFound(c, area);
    });

  app.get(
    '/admin/:school/apps/:app',
    withApp(async (c, area, found) => {
      // A count of connections revoked by the edit this page follows; only digits are read.
      const revoked = /^[0-9]{1,4}$/.test(c.req.query('revoked') ?? '') ? Number(c.req.query('revoked')) : 0;
      const view = appPage(area, found, { values: appValues(found), errors: {} }, done(c), {
        revokedGrants: revoked,
        overlapSeconds: ctx.config.clientSecretOverlapSeconds,
      });
      return sendAreaPage(c, 200, found.name, view);
    }),
  );

  app.get(
    '/admin/:school/apps/:app/secret',
    withApp(async (c, area, found) => {
      const flash = await takeFlash<SecretFlash>(ctx, area.viewer.session, secretFlash(found.clientId));
      if (!flash) return sendAreaPage(c, 410, 'Secret already shown', secretGonePage(area, found));
      return sendAreaPage(
        c,
        200,
        flash.rotated ? 'New client secret' : `${found.name} is ready`,
        secretPage(area, found, flash),
      );
    }),
  );

  app.post(
    '/admin/:school/apps/:app',
    withApp(async (c, area, found) => {
      const fields = await form(c, area);
      if (fields instanceof Response) return fields;
      const values = { ...formValues(fields), authMethod: found.authMethod };
      const checked = validateMemberAppInput(values);
      if (!checked.ok) {
        const view = appPage(area, found, { values, errors: checked.errors }, undefined, {
          overlapSeconds: ctx.config.clientSecretOverlapSeconds,
        });
        return sendAreaPage(c, 422, found.name, view);
      }
      const result = await updateMemberApp(ctx.db, area.school.id, found.clientId, checked.value);
      if (!result) return appNotFound(c, area);
      const revoked = result.revokedGrants > 0 ? `&revoked=${result.revokedGrants}` : '';
      return c.redirect(appPathOf(area, found.clientId, `?done=updated${revoked}`), 303);
    }),
  );

  app.post(
    '/admin/:school/apps/:app/rotate-secret',
    withApp(async (c, area, found) => {
      const fields = await form(c, area);
      if (fields instanceof Response) return fields;
      const overlap = ctx.config.clientSecretOverlapSeconds;
      const rotated = await rotateMemberAppSecret(ctx.db, area.school.id, found.clientId, overlap);
      if (!rotated) return messagePage(c, 400, 'No secret to rotate', 'Public apps have no client secret.');
      const flash: SecretFlash = {
        secret: rotated.secret,
        rotated: true,
        previousValidUntil: rotated.previousValidUntil,
      };
      await putFlash(ctx, area.viewer.session, secretFlash(found.clientId), flash);
      return c.redirect(appPathOf(area, found.clientId, '/secret'), 303);
    }),
  );

  app.get(
    '/admin/:school/apps/:app/delete',
    withApp(async (c, area, found) => {
      const connections = (await listSchoolConnections(ctx.db, area.school.id)).filter(
        (conn) => conn.clientId === found.clientId,
      ).length;
      return sendAreaPage(c, 200, `Delete ${found.name}?`, deleteAppPage(area, found, connections));
    }),
  );

  app.post(
    '/admin/:school/apps/:app/delete',
    withApp(async (c, area, found) => {
      const fields = await form(c, area);
      if (fields instanceof Response) return fields;
      await deleteMemberApp(ctx.db, area.school.id, found.clientId);
      return c.redirect(areaPath(area.school.id, '/apps?done=deleted'), 303);
    }),
  );

  return app;
}

const appPathOf = (area: Area, clientId: string, rest = '') =>
  areaPath(area.school.id, `/apps/${encodeURIComponent(clientId)}${rest}`);

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
