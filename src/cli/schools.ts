import { invitationLink } from '../admin/member-actions.ts';
import type { Config } from '../config.ts';
import { hashPassword } from '../crypto/passwords.ts';
import {
  checkNewSchool,
  type FirstOwner,
  foundSchool,
  foundSchoolByInvitation,
  type NewSchool,
} from '../domain/school/school-founding.ts';
import { subdomainTaken } from '../domain/school/school-settings.ts';
import { findSchoolBySubdomain } from '../domain/school/schools.ts';
import { findUserByEmail } from '../domain/school/users.ts';
import { logSecurityEvent } from '../http/security-log.ts';
import type { Runtime } from '../runtime.ts';
import { openCommandRuntime } from './command-runtime.ts';
import { UsageError } from './failures.ts';
import { parseOptions, readNewPassword } from './input.ts';

const shown = (s: {
  id: string;
  name: string;
  subdomain: string;
  currency: string;
  locale: string;
  timezone: string;
}) => {
  const { id, name, subdomain, currency, locale, timezone } = s;
  return { id, name, subdomain, currency, locale, timezone };
};

/**
 * `--link`: the school, and an owner invitation whose one-time link is printed (standard output
 * only, never logged): the owner opens it to set name and password, or signs in and accepts.
 */
async function createWithLink(runtime: Runtime, school: NewSchool, ownerEmail: string): Promise<void> {
  const founded = await foundSchoolByInvitation(runtime.db, school, ownerEmail);
  logSecurityEvent(runtime.logger, 'school.created', {
    schoolId: founded.school.id,
    invitationId: founded.invitation.id,
  });
  logSecurityEvent(runtime.logger, 'invitation.created', {
    schoolId: founded.school.id,
    invitationId: founded.invitation.id,
    roles: founded.invitation.roles,
  });
  console.log(
    JSON.stringify({
      school: shown(founded.school),
      owner: { email: founded.invitation.email, invitation_id: founded.invitation.id },
      link: invitationLink(runtime, founded.token),
      link_expires_at: founded.invitation.expiresAt,
    }),
  );
}

/**
 * `lectern schools create --name N --subdomain S [--currency C] [--locale L] [--timezone TZ]
 * --owner-email E [--owner-name N | --link]`: the school and its first owner in one transaction.
 * The new owner's password is read from standard input; an email that already has an account
 * makes that account the owner, its password untouched, and then nothing is read. With `--link`
 * nothing is read: a one-time link for the owner is printed instead.
 */
export async function schoolsCreate(config: Config, argv: string[]): Promise<void> {
  const values = parseOptions(argv, {
    name: { type: 'string' },
    subdomain: { type: 'string' },
    currency: { type: 'string' },
    locale: { type: 'string' },
    timezone: { type: 'string' },
    'owner-email': { type: 'string' },
    'owner-name': { type: 'string' },
    link: { type: 'boolean' },
  });
  if (!values.name || !values.subdomain || !values['owner-email'])
    throw new UsageError('schools create needs --name, --subdomain and --owner-email');
  if (values.link && values['owner-name'] !== undefined)
    throw new UsageError('--link lets the owner choose their own name: leave out --owner-name');
  const school = {
    name: values.name,
    // DNS labels are case-insensitive: RIVERSIDE and riverside are one address.
    subdomain: values.subdomain.toLowerCase(),
    currency: values.currency,
    locale: values.locale,
    timezone: values.timezone,
  };
  // Refuse bad values before anything is read or opened.
  const checked = checkNewSchool(school, values['owner-email']);
  const runtime = await openCommandRuntime(config);
  try {
    // A taken subdomain is said before a password is asked for (foundSchool checks again, in
    // its transaction, for a concurrent creation).
    if (await findSchoolBySubdomain(runtime.db, checked.subdomain)) throw subdomainTaken(checked.subdomain);
    if (values.link) return await createWithLink(runtime, school, checked.ownerEmail);
    const existing = await findUserByEmail(runtime.db, checked.ownerEmail);
    if (!existing && !values['owner-name']?.trim())
      throw new UsageError(`no account has ${checked.ownerEmail} yet: --owner-name is needed to create it`);
    const owner: FirstOwner = {
      email: checked.ownerEmail,
      name: values['owner-name'],
      passwordHash: existing ? null : await hashPassword(await readNewPassword()),
    };
    const founded = await foundSchool(runtime.db, school, owner);
    logSecurityEvent(runtime.logger, 'school.created', {
      schoolId: founded.school.id,
      userId: founded.owner.id,
      ownerCreated: founded.owner.created,
    });
    console.log(JSON.stringify({ school: shown(founded.school), owner: founded.owner }));
  } finally {
    await runtime.close();
  }
}
