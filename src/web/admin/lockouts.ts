/**
 * `/admin/:school/locked`: the school's members who cannot sign in now after
 * repeated failed attempts, each with an Unlock button. The same rules as the admin API's
 * `members.list_locked` and `members.unlock` (admin/operations/member-locks.ts); who may lift a
 * lock is the domain's rule (domain/school/lock-lifting.ts), put into words here.
 */
import { Hono } from 'hono';
import { html } from 'hono/html';
import { lockedMembers, type MemberLock, unlockMember } from '../../admin/operations/member-locks.ts';
import { type LockLiftRefusal, lockLiftRefusal } from '../../domain/school/lock-lifting.ts';
import { getMember } from '../../domain/school/members-admin.ts';
import { ProblemError } from '../../errors/problem-error.ts';
import { minutes } from '../error-page.ts';
import type { Html } from '../layout.ts';
import { csrfField, notice, sendAreaPage, when } from '../shared/page-kit.ts';
import { PageRefusal } from '../shared/refusal.ts';
import { type Area, areaNav, areaPath } from './area.ts';
import { type ConsoleContext, type ConsoleEnv, operators, postedForm } from './console-env.ts';

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
<td data-label="Locked until">${when(l.lockedUntil)} <span class="muted">(${minutes(l.retryAfterSeconds)})</span></td>
<td>${
      l.refusal === undefined
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

/** Why the lock cannot be lifted here, in words, by the domain's reason. */
const REFUSED: Record<LockLiftRefusal, string> = {
  belongs_elsewhere:
    'This person’s account is also used outside this school, so only they can lift the lock: by resetting their password (“Forgot password?” on the sign-in page) or by waiting until it ends.',
};

const backToLocked = (area: Area) => [
  { href: areaPath(area.school.id, '/locked'), label: 'Back to locked accounts' },
];

async function showLocked(c: ConsoleContext): Promise<Response> {
  const { area, app } = c.var;
  const locks = await lockedMembers(app, app.db, area.school.id);
  return sendAreaPage(c, 200, 'Locked accounts', lockedPage(area, locks, c.req.query('done')));
}

/** Lifts a member's lock, when the domain's rule lets this school's operators (lock-lifting.ts). */
async function unlock(c: ConsoleContext): Promise<Response> {
  const { area, app } = c.var;
  const who = { schoolId: area.school.id, actorUserId: area.viewer.user.id, requestId: c.get('requestId') };
  const memberId = (postedForm(c).get('member') ?? '').slice(0, 64);
  // Only this school's members are found: another school's member id is "no such member".
  const member = await getMember(app.db, area.school.id, memberId).catch((err: unknown) => {
    if (err instanceof ProblemError && err.code === 'not_found') {
      throw new PageRefusal(404, 'Member not found', 'This school has no such member.', {
        links: backToLocked(area),
      });
    }
    throw err;
  });
  const refusal = await lockLiftRefusal(app.db, area.school.id, member.userId);
  if (refusal) {
    throw new PageRefusal(403, 'Cannot unlock this account', REFUSED[refusal], { links: backToLocked(area) });
  }
  await unlockMember(app, app.db, who, member.id);
  return c.redirect(areaPath(area.school.id, '/locked?done=unlocked'), 303);
}

/** The locked-accounts page and its unlock action. */
export function lockoutRoutes(): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  app.get('/:school/locked', operators, showLocked);
  app.post('/:school/locked/unlock', operators, unlock);
  return app;
}
