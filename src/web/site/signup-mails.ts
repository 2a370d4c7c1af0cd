/**
 * The two mails of a sign-up at a school's site: the confirmation link for a new address, and the
 * notice to the owner of an address that already had an account (the page said the same to both).
 */
import type { PublicSite } from '../../domain/catalog/public-catalogue.ts';
import type { User } from '../../domain/school/users.ts';
import type { AppContext } from '../../http/context.ts';
import { composeMail } from '../../mail/compose.ts';
import type { MailMessage } from '../../mail/mailer.ts';
import { signInHref } from './kit.ts';

/** The link that makes the pending sign-up's account at the school's site and signs them in. */
export function confirmationLink(ctx: AppContext, site: PublicSite, token: string, returnTo: string): string {
  const link = new URL(`/schools/${site.subdomain}/signup/confirm`, ctx.config.baseUrl);
  link.searchParams.set('token', token);
  link.searchParams.set('return_to', returnTo);
  return link.toString();
}

/** The mail to a new address: open the link to confirm it and finish signing up. */
export function confirmationMail(
  site: PublicSite,
  name: string,
  email: string,
  link: string,
): Promise<MailMessage> {
  return composeMail(email, site.name, `Confirm your email for ${site.name}`, [
    { text: `Hello ${name},` },
    {
      text: `Welcome to ${site.name}. To confirm that this is your email address and finish signing up, open this link within seven days:`,
      link,
    },
    { text: 'If you did not sign up, ignore this email: no account is made until the link is used.' },
  ]);
}

/** The mail to the owner of an address that has an account: sign in, or reset the password. */
export function alreadySignedUpMail(ctx: AppContext, site: PublicSite, user: User): Promise<MailMessage> {
  const signIn = new URL(signInHref(`/schools/${site.subdomain}/`), ctx.config.baseUrl).toString();
  const reset = new URL('/password-reset', ctx.config.baseUrl).toString();
  return composeMail(user.email, site.name, `Someone tried to sign up at ${site.name} with your email`, [
    { text: `Hello ${user.name},` },
    {
      text: `Someone tried to sign up at ${site.name} with your address, ${user.email}, which already has an account. If it was you, sign in with it:`,
      link: signIn,
    },
    { text: 'Forgot your password? Reset it here:', link: reset },
    { text: 'If it was not you, ignore this email: nothing about your account changed.' },
  ]);
}
