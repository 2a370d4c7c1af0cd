/**
 * `/admin/:school/locked`: the school's members who cannot sign in now after
 * repeated failed attempts, each with an Unlock button. The same rules as the admin API's
 * `members.list_locked` and `members.unlock` (admin/operations/member-locks.ts).
 */
import { type Context, Hono } from 'hono';
import { html } from 'hono/html';
import { lockedMembers, type MemberLock, unlockMember } from '../../admin/operations/member-locks.ts';
import { ProblemError } from '../../errors/problem-error.ts';
import type { AppContext, AppEnv } from '../../http/context.ts';
import { isoIn } from '../../store/time.ts';
import { minutes } from '../error-page.ts';
import type { Html } from '../layout.ts';
import { csrfField, messagePage, notice, readForm, sendAreaPage, when } from '../shared/page-kit.ts';
import { type Area, areaNav, areaOfRequest, areaPath } from './area.ts';

const DONE: Record<string, string> = {
  unlocked: 'The account was unlocked. The person can sign in again now.',
};

function lockedTable(area: Area, locks: readonly MemberLock[]): Html {
  if (locks.length === 0) return html`<p class="muted">Nobody at ${area.school.name} is locked out now.</p>`;
  return html`<div class="table-wrap"><table class="stack">
<thead><tr><th scope="col">Member</th><th scope="col">Locked until</th><th scope="col"><span class="muted">Action</span></th></tr></thead>
<tbody>${locks.map(
    (l) => html`<tr>
<td><strong>${l.member.name}</strong><br><span class="muted">${l.member.email}</span></td>
<td data-label="Locked until">${when(isoIn(l.retryAfterSeconds))} <span class="muted">(${minutes(l.retryAfterSeconds)})</span></td>
<td>${
      l.unlockable
        ? html`<form class="inline" method="post" action="${areaPath(area.school.id, '/locked/unlock')}">${csrfField(area.viewer)}
<input type="hidden" name="member" value="${l.member.id}">
<button class="secondary small" type="submit" aria-label="Unlock ${l.member.name}">Unlock</button></form>`
        : html`<span class="muted">Only they can lift it (this account is also used outside ${area.school.name}): by resetting their password, or by waiting.</span>`
    }</td>
</tr>`,
  )}</tbody></table></div>`;
}

function lockedPage(area: Area, locks: readonly MemberLock[], done: string | undefined): Html {
  return html`${areaNav(area, 'locked')}
<h1>${area.school.name} · Locked accounts</h1>
${done && Object.hasOwn(DONE, done) ? notice('success', DONE[done]) : ''}
<p>After 5 failed sign-ins within 15 minutes an account is paused until the oldest attempt is 15 minutes old.
Unlock someone once you know the attempts were theirs; they can also lift the pause by resetting their password.</p>
${lockedTable(area, locks)}`;
}

/** The locked-accounts page and its unlock action. */
export function createAdminLockoutsApp(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const areaOf = (c: Context<AppEnv>) => areaOfRequest(ctx, c);

  app.get('/admin/:school/locked', async (c) => {
    const area = await areaOf(c);
    if (area instanceof Response) return area;
    const locks = await lockedMembers(ctx, ctx.db, area.school.id);
    return sendAreaPage(c, 200, 'Locked accounts', lockedPage(area, locks, c.req.query('done')));
  });

  app.post('/admin/:school/locked/unlock', async (c) => {
    const area = await areaOf(c);
    if (area instanceof Response) return area;
    const form = await readForm(ctx, c, area.viewer);
    if (form instanceof Response) return form;
    const who = {
      schoolId: area.school.id,
      actorUserId: area.viewer.user.id,
      requestId: c.get('requestId'),
    };
    // Only this school's members are found: another school's member id is "no such member".
    const unlocked = await unlockMember(ctx, ctx.db, who, (form.get('member') ?? '').slice(0, 64)).catch(
      (err: unknown) => {
        if (err instanceof ProblemError && (err.code === 'not_found' || err.code === 'unlock_not_allowed'))
          return err;
        throw err;
      },
    );
    if (unlocked instanceof ProblemError && unlocked.code === 'unlock_not_allowed') {
      return messagePage(c, 403, 'Cannot unlock this account', unlocked.detail ?? '', {
        href: areaPath(area.school.id, '/locked'),
        label: 'Back to locked accounts',
      });
    }
    if (unlocked instanceof ProblemError) {
      return messagePage(c, 404, 'Member not found', 'This school has no such member.', {
        href: areaPath(area.school.id, '/locked'),
        label: 'Back to locked accounts',
      });
    }
    return c.redirect(areaPath(area.school.id, '/locked?done=unlocked'), 303);
  });

  return app;
}
