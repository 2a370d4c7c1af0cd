import type { Context } from 'hono';
import { listMembershipsOfUser } from '../domain/school/memberships.ts';
import { findUserByEmail, normalizeEmail } from '../domain/school/users.ts';
import { recordEvent } from '../events/outbox.ts';
import { clientAddress } from '../http/client-address.ts';
import type { AppContext } from '../http/context.ts';
import { inTransaction } from '../store/database.ts';

/**
 * Audit-only events of sign-in (issue #13): a failed password or a throttled attempt for an
 * existing account is written to the audit trail of every school the person belongs to, so each
 * school's operators see attempts on their members. Nothing is written for unknown emails (there
 * is no school to tell) and never the password.
 */
export async function auditLoginFailure(
  ctx: AppContext,
  c: Context,
  type: 'login.failed' | 'login.locked',
  email: string,
  windowSeconds: number,
): Promise<void> {
  try {
    // A locked account is hammered without limit: one `login.locked` per account per window.
    if (type === 'login.locked') {
      const once = await ctx.throttle.reserve([
        { key: `audit:login-locked:${normalizeEmail(email)}`, limit: 1, windowSeconds },
      ]);
      if (once.retryAfter > 0) return;
    }
    const user = await findUserByEmail(ctx.db, email);
    if (!user) return;
    const schools = await listMembershipsOfUser(ctx.db, user.id);
    if (schools.length === 0) return;
    const data = { user_id: user.id, client_address: clientAddress(ctx.config, c) };
    await inTransaction(ctx.db, async (tx) => {
      for (const m of schools) await recordEvent(tx, m.schoolId, type, data);
    });
  } catch (err) {
    // The audit line must never turn a refused sign-in into a 500.
    ctx.logger.warn({ err, type }, 'could not record a sign-in audit event');
  }
}
