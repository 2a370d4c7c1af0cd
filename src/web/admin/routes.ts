/**
 * The console's home and settings: the school picker (`/admin`), a school's settings page and its
 * beta switch, and the apps its members connected. Every change is a POST (the console's frame
 * has checked its CSRF token) answered by a redirect (POST-redirect-GET), so a refresh never
 * repeats it. The OAuth applications pages are app-pages.ts.
 */
import { Hono } from 'hono';
import { switchBeta } from '../../admin/school-actions.ts';
import { findMembership } from '../../domain/school/memberships.ts';
import { listMemberApps } from '../../oauth/clients/member-apps.ts';
import { listSchoolConnections, revokeSchoolConnection } from '../../oauth/grants/connected-apps.ts';
import { sendAreaPage } from '../shared/page-kit.ts';
import { PageRedirect, PageRefusal } from '../shared/refusal.ts';
import { areaPath, notOperator, operatedSchools } from './area.ts';
import { type ConsoleContext, type ConsoleEnv, operators, postedForm, staff } from './console-env.ts';
import { connectedPage, revokeConnectionPage, schoolPickerPage, settingsPage } from './views.ts';

/** `/admin`: the one school's console, the school asked for, or a picker of the viewer's schools. */
async function showPicker(c: ConsoleContext): Promise<Response> {
  const schools = await operatedSchools(c.var.app, c.var.viewer);
  const wanted = c.req.query('school');
  if (wanted) {
    if (!schools.some((s) => s.id === wanted)) throw notOperator();
    return c.redirect(areaPath(wanted), 303);
  }
  if (schools.length === 0) throw notOperator();
  if (schools.length === 1) return c.redirect(areaPath(schools[0].id), 302);
  return sendAreaPage(c, 200, 'Admin', schoolPickerPage(schools));
}

/** A school's settings (beta features); a lecturer's console is the courses they teach. */
async function showSettings(c: ConsoleContext): Promise<Response> {
  const { area, app } = c.var;
  if (area.teaching) throw new PageRedirect(areaPath(area.school.id, '/courses'));
  const count = (await listMemberApps(app.db, area.school.id)).length;
  return sendAreaPage(
    c,
    200,
    `${area.school.name} · Settings`,
    settingsPage(area, c.req.query('done'), count),
  );
}

/** Turns the MCP connections beta on or off. */
async function switchBetaFeature(c: ConsoleContext): Promise<Response> {
  const { area, app } = c.var;
  const enabled = postedForm(c).get('enabled');
  if (enabled !== 'on' && enabled !== 'off') {
    throw new PageRefusal(400, 'Invalid request', 'Choose to turn the feature on or off.');
  }
  const { user } = area.viewer;
  const membership = await findMembership(app.db, area.school.id, user.id);
  const actor = { userId: user.id, roles: membership?.roles ?? [], requestId: c.get('requestId') };
  await switchBeta({ app, db: app.db, schoolId: area.school.id, actor }, 'mcp_connections', enabled === 'on');
  return c.redirect(areaPath(area.school.id, `?done=beta-${enabled}`), 303);
}

/** The apps the school's members connected. */
async function showConnected(c: ConsoleContext): Promise<Response> {
  const { area, app } = c.var;
  const connections = await listSchoolConnections(app.db, area.school.id);
  return sendAreaPage(
    c,
    200,
    `${area.school.name} · Connected apps`,
    connectedPage(area, connections, c.req.query('done')),
  );
}

/** The page that asks before a connection is revoked. */
async function askRevokeConnection(c: ConsoleContext): Promise<Response> {
  const { area, app } = c.var;
  const key = c.req.query('grant') ?? '';
  const found = (await listSchoolConnections(app.db, area.school.id)).find((conn) => conn.key === key);
  if (!found) return c.redirect(areaPath(area.school.id, '/connected?done=not-found'), 303);
  return sendAreaPage(c, 200, `Revoke ${found.clientName}?`, revokeConnectionPage(area, found));
}

/** Revokes a connection (its grant and tokens), logged as the operator's doing. */
async function revokeConnection(c: ConsoleContext): Promise<Response> {
  const { area, app } = c.var;
  const grantId = postedForm(c).get('grant') ?? '';
  const revoked = await revokeSchoolConnection(app.db, area.school.id, grantId);
  const done = revoked > 0 ? 'revoked' : 'not-found';
  return c.redirect(areaPath(area.school.id, `/connected?done=${done}`), 303);
}

/** The console's home, settings and connected-apps routes. */
export function settingsRoutes(): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  app.get('/', showPicker);
  app.get('/:school', staff, showSettings);
  app.post('/:school/beta', operators, switchBetaFeature);
  app.get('/:school/connected', operators, showConnected);
  app.get('/:school/connected/revoke', operators, askRevokeConnection);
  app.post('/:school/connected/revoke', operators, revokeConnection);
  return app;
}
