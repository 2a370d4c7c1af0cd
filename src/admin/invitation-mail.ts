/** The invitation email, composed as every account email is (mail/compose.ts). */
import { html } from 'hono/html';
import { composeMail } from '../mail/compose.ts';
import type { MailMessage } from '../mail/mailer.ts';

/** What the email says: who invites, to which school, as what, the link and until when. */
export interface InvitationMailInput {
  readonly to: string;
  readonly schoolName: string;
  readonly inviterName: string | null;
  readonly roles: readonly string[];
  readonly link: string;
  readonly expiresAt: string;
}

/** The message, with the school's name as the sender's name and in the body. */
export function invitationMail(m: InvitationMailInput): Promise<MailMessage> {
  const who = m.inviterName ? `${m.inviterName} invites you` : 'You are invited';
  const as = m.roles.join(', ');
  const until = `${m.expiresAt.slice(0, 16).replace('T', ' ')} UTC`;
  return composeMail(m.to, m.schoolName, `Join ${m.schoolName} on Lectern`, [
    {
      text: `${who} to join ${m.schoolName} on Lectern as ${as}.`,
      html: html`${who} to join <strong>${m.schoolName}</strong> on Lectern as ${as}.`,
    },
    {
      text: 'Open this link to accept (new to Lectern? you will choose your name and password there):',
      link: m.link,
    },
    {
      text: `The link works once, until ${until}. If you did not expect this invitation, ignore this email.`,
    },
    { text: m.schoolName },
  ]);
}
