/**
 * The account-recovery emails: the reset link and the "your password was changed"
 * notice, each plain text plus HTML, signed with the school's name when the person belongs to
 * exactly one school (else "Lectern": a person of two schools is not one school's).
 */
import { listMembershipsOfUser } from '../../domain/school/memberships.ts';
import type { User } from '../../domain/school/users.ts';
import type { AppContext } from '../../http/context.ts';
import { composeMail } from '../../mail/compose.ts';
import type { MailMessage } from '../../mail/mailer.ts';

/** The name an account email is sent in. */
async function senderName(ctx: AppContext, userId: string): Promise<string> {
  const schools = (await listMembershipsOfUser(ctx.db, userId)).filter((m) => m.status === 'active');
  return schools.length === 1 ? schools[0].schoolName : 'Lectern';
}

/** The reset link's email. */
export async function resetMail(ctx: AppContext, user: User, link: string): Promise<MailMessage> {
  const from = await senderName(ctx, user.id);
  return composeMail(user.email, from, `Reset your ${from} password`, [
    { text: `Hello ${user.name},` },
    {
      text: `Someone asked to reset the password of your ${from} account. To choose a new password, open this link within one hour:`,
      link,
    },
    {
      text: 'The link works once. If you did not ask for this, ignore this email: your password stays as it is.',
    },
  ]);
}

/** The security notice after a password change (from /account or through a reset link). */
export async function passwordChangedMail(ctx: AppContext, user: User): Promise<MailMessage> {
  const from = await senderName(ctx, user.id);
  const signIn = new URL('/login', ctx.config.baseUrl).toString();
  const reset = new URL('/password-reset', ctx.config.baseUrl).toString();
  return composeMail(user.email, from, `Your ${from} password was changed`, [
    { text: `Hello ${user.name},` },
    {
      text: `The password of your ${from} account (${user.email}) was just changed. You can sign in with the new one:`,
      link: signIn,
    },
    { text: 'If this was not you, reset your password now and tell your school’s operator:', link: reset },
  ]);
}

/**
 * Sends without holding the request: the answer must not wait for (or time) the SMTP server.
 * A failure is logged with the recipient's id (none before an account exists) and subject only,
 * never the message (it holds one-time links).
 */
export function sendInBackground(
  ctx: AppContext,
  userId: string | null,
  message: Promise<MailMessage>,
): void {
  message
    .then((m) =>
      ctx.mailer.send(m).catch((err: unknown) => {
        ctx.logger.warn(
          { err: { message: (err as Error).message }, userId, subject: m.subject },
          'account mail not sent',
        );
      }),
    )
    .catch((err: unknown) => ctx.logger.warn({ err, userId }, 'account mail not composed'));
}
