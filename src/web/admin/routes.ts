/**
 * `/admin`: a school's operator area (product.md §8). Every page needs a signed-in owner or admin
 * of the school in the path; every change is a CSRF-checked POST answered by a redirect (or, for
 * a new secret, by a no-store page that shows it once).
 */
import { type Context, Hono } from 'hono';
import { setBetaFeature } from '../../domain/school/schools.ts';
import type { AppContext, AppEnv } from '../../http/context.ts';
import { logSecurityEvent } from '../../http/security-log.ts';
import { listSchoolConnections, revokeSchoolConnection } from '../../oauth/connected-apps.ts';
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
} from '../../oauth/member-apps.ts';
import { messagePage, readForm, requireViewer, sendAreaPage } from '../account/page-kit.ts';
import { appListPage, appPage, deleteAppPage, newAppPage, secretPage } from './app-views.ts';
import { type Area, areaPath, forbidden, operatedSchools, requireOperator } from './area.ts';
import { connectedPage, schoolPickerPage, settingsPage } from './views.ts';

type Handler = (c: Context<AppEnv>, area: Area) => Promise<Response>;

/** The operator area's pages, mounted at `/admin`. */
export function createAdminPagesApp(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  // Signed in, operator of the school in the path; else /login or the 403 page.
  const operator =
    (handler: Handler) =>
    async (c: Context<AppEnv>): Promise<Response> => {
      const viewer = await requireViewer(ctx, c, '/admin');
      if (viewer instanceof Response) return viewer;
      const area = await requireOperator(ctx, c, viewer, c.req.param('school') ?? '');
      return area instanceof Response ? area : handler(c, area);
    };
  // The Developers section exists only while the school has the MCP connections beta on.
  const developers = (handler: Handler) =>
    operator(async (c, area) => {
      if (!area.developers) {
        return messagePage(
          c,
          404,
          'OAuth applications are off',
          'Turn on the MCP connections beta feature in Settings to manage OAuth applications.',
          { href: areaPath(area.school.id), label: 'Go to Settings' },
        );
      }
      return handler(c, area);
    });
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
    operator(async (c, area) => {
      const count = area.developers ? (await listMemberApps(ctx.db, area.school.id)).length : 0;
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
      await setBetaFeature(ctx.db, area.school.id, 'mcp_connections', enabled === 'on');
      logSecurityEvent(ctx.logger, 'beta.toggled', {
        schoolId: area.school.id,
        actorUserId: area.viewer.user.id,
        feature: 'mcp_connections',
        enabled: enabled === 'on',
        requestId: c.get('requestId'),
      });
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

  app.post(
    '/admin/:school/connected/revoke',
    operator(async (c, area) => {
      const fields = await form(c, area);
      if (fields instanceof Response) return fields;
      const grantId = fields.get('grant') ?? '';
      const revoked = await revokeSchoolConnection(ctx.db, area.school.id, grantId);
      if (revoked > 0) {
        logSecurityEvent(ctx.logger, 'grant.revoked', {
          schoolId: area.school.id,
          actorUserId: area.viewer.user.id,
          grantId,
          grantsRevoked: revoked,
          by: 'operator',
          requestId: c.get('requestId'),
        });
      }
      return c.redirect(
        areaPath(area.school.id, `/connected?done=${revoked > 0 ? 'revoked' : 'not-found'}`),
        303,
      );
    }),
  );

  app.get(
    '/admin/:school/apps',
    developers(async (c, area) => {
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
    developers(async (c, area) => {
      // Least privilege by default: identity and read; the operator ticks write if the app needs it.
      const scopes = MEMBER_APP_SCOPES.filter((s) => !s.endsWith(':write'));
      const values = { name: '', redirectUris: '', authMethod: 'none', scopes };
      return sendAreaPage(c, 200, 'Create an OAuth application', newAppPage(area, values, {}));
    }),
  );

  app.post(
    '/admin/:school/apps',
    developers(async (c, area) => {
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
        return sendAreaPage(
          c,
          201,
          `${created.app.name} is ready`,
          secretPage(area, created.app, created.clientSecret, false),
        );
      } catch (err) {
        if (err instanceof TooManyAppsError) return messagePage(c, 409, 'Too many apps', err.message);
        throw err;
      }
    }),
  );

  const withApp = (handler: (c: Context<AppEnv>, area: Area, app: MemberApp) => Promise<Response>) =>
    developers(async (c, area) => {
      const found = await getMemberApp(ctx.db, area.school.id, c.req.param('app') ?? '');
      return found ? handler(c, area, found) : appNotFound(c, area);
    });

  app.get(
    '/admin/:school/apps/:app',
    withApp(async (c, area, found) =>
      sendAreaPage(
        c,
        200,
        found.name,
        appPage(area, found, { values: appValues(found), errors: {} }, done(c)),
      ),
    ),
  );

  app.post(
    '/admin/:school/apps/:app',
    withApp(async (c, area, found) => {
      const fields = await form(c, area);
      if (fields instanceof Response) return fields;
      const values = { ...formValues(fields), authMethod: found.authMethod };
      const checked = validateMemberAppInput(values);
      if (!checked.ok) {
        return sendAreaPage(
          c,
          422,
          found.name,
          appPage(area, found, { values, errors: checked.errors }, undefined),
        );
      }
      const result = await updateMemberApp(ctx.db, area.school.id, found.clientId, checked.value);
      const updated = await getMemberApp(ctx.db, area.school.id, found.clientId);
      if (!result || !updated) return appNotFound(c, area);
      if (result.revokedGrants > 0) {
        const view = appPage(
          area,
          updated,
          { values: appValues(updated), errors: {} },
          'updated',
          result.revokedGrants,
        );
        return sendAreaPage(c, 200, updated.name, view);
      }
      return c.redirect(
        areaPath(area.school.id, `/apps/${encodeURIComponent(found.clientId)}?done=updated`),
        303,
      );
    }),
  );

  app.post(
    '/admin/:school/apps/:app/rotate-secret',
    withApp(async (c, area, found) => {
      const fields = await form(c, area);
      if (fields instanceof Response) return fields;
      const secret = await rotateMemberAppSecret(ctx.db, area.school.id, found.clientId);
      if (!secret) return messagePage(c, 400, 'No secret to rotate', 'Public apps have no client secret.');
      const updated = (await getMemberApp(ctx.db, area.school.id, found.clientId)) ?? found;
      return sendAreaPage(c, 200, 'New client secret', secretPage(area, updated, secret, true));
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
