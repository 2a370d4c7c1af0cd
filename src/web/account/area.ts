/**
 * The account area, mounted at `/account`: one sub-app whose middleware signs the viewer in
 * (`c.var.viewer`) and checks every POST's CSRF token once (`c.var.form`), and whose `onError`
 * renders a thrown refusal with the account's navigation.
 */
import { Hono } from 'hono';
import type { AppContext } from '../../http/context.ts';
import { topNav } from '../shared/page-kit.ts';
import { pageRefusalHandler, sendRefusalPage, signedInArea, type ViewerEnv } from '../shared/viewer.ts';
import { confirmDisconnect, disconnect, showAccount } from './routes.ts';
import { accountNav, changePassword, rename, showSettings, signOutOthers } from './settings.ts';

/** The account pages: `/account`, its settings and its actions. */
export function createAccountArea(ctx: AppContext): Hono<ViewerEnv> {
  const app = new Hono<ViewerEnv>();
  const guard = signedInArea(ctx, '/account');
  // The Account API shares the prefix (`/account/graphql…`): bearer tokens, no session, its own
  // errors; what it does not answer is its own 404, not a sign-in page.
  app.use('*', (c, next) => (c.req.path.startsWith('/account/graphql') ? next() : guard(c, next)));
  app.onError(
    pageRefusalHandler(async (c, refusal) => {
      const viewer = c.var.viewer as ViewerEnv['Variables']['viewer'] | undefined;
      const nav = viewer ? topNav(viewer, await accountNav(ctx, viewer, '')) : undefined;
      return sendRefusalPage(
        c,
        refusal,
        { href: '/account', label: 'Go to your account' },
        { nav, wide: true },
      );
    }),
  );

  app.get('/', showAccount(ctx));
  app.get('/connections/revoke', confirmDisconnect(ctx));
  app.post('/connections/revoke', disconnect(ctx));
  app.get('/settings', showSettings(ctx));
  app.post('/name', rename(ctx));
  app.post('/password', changePassword(ctx));
  app.post('/sessions/sign-out-others', signOutOthers(ctx));
  return app;
}
