/** The invitation email (issue #16): plain text for every reader, HTML for those that render it. */
import type { MailMessage } from '../mail/mailer.ts';

const ROLE_WORDS: Record<string, string> = {
  owner: 'owner',
  admin: 'admin',
  lecturer: 'lecturer',
  student: 'student',
};

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

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
export function invitationMail(m: InvitationMailInput): MailMessage {
  const who = m.inviterName ? `${m.inviterName} invites you` : 'You are invited';
  const as = m.roles.map((r) => ROLE_WORDS[r] ?? r).join(', ');
  const until = `${m.expiresAt.slice(0, 16).replace('T', ' ')} UTC`;
  const text = [
    `${who} to join ${m.schoolName} on Lectern as ${as}.`,
    '',
    'Open this link to accept (new to Lectern? you will choose your name and password there):',
    m.link,
    '',
    `The link works once, until ${until}. If you did not expect this invitation, ignore this email.`,
    '',
    `${m.schoolName}`,
  ].join('\n');
  const html = `<p>${escapeHtml(who)} to join <strong>${escapeHtml(m.schoolName)}</strong> on Lectern as ${escapeHtml(as)}.</p>
<p><a href="${escapeHtml(m.link)}">Accept the invitation</a> (new to Lectern? you will choose your name and password there).</p>
<p>The link works once, until ${escapeHtml(until)}. If you did not expect this invitation, ignore this email.</p>
<p>${escapeHtml(m.schoolName)}</p>`;
  return {
    to: m.to,
    subject: `Join ${m.schoolName} on Lectern`,
    text,
    html,
    fromName: m.schoolName,
  };
}
