import type { Config } from '../config.ts';
import { hashPassword } from '../crypto/passwords.ts';
import { checkNewSchool, type FirstOwner, foundSchool } from '../domain/school/school-founding.ts';
import { findUserByEmail } from '../domain/school/users.ts';
import { logSecurityEvent } from '../http/security-log.ts';
import { openCommandRuntime } from './command-runtime.ts';
import { UsageError } from './failures.ts';
import { parseOptions, readNewPassword } from './input.ts';

/**
 * How a new owner account gets its first password. Today: read from standard input. A
 * set-password-link mode (issue #16, invitations) adds one branch here that returns a null hash
 * and, after the school exists, prints the link: nothing else in the command changes.
 */
async function newOwnerPasswordHash(): Promise<string | null> {
  return hashPassword(await readNewPassword());
}

/**
 * `lectern schools create --name N --subdomain S [--currency C] [--locale L] [--timezone TZ]
 * --owner-email E [--owner-name N]`: the school and its first owner in one transaction. An email
 * that already has an account makes that account the owner, its password untouched, and then
 * nothing is read from standard input.
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
  });
  if (!values.name || !values.subdomain || !values['owner-email'])
    throw new UsageError('schools create needs --name, --subdomain and --owner-email');
  const school = {
    name: values.name,
    // A host name is case-insensitive (RFC 4343): the label typed as RIVERSIDE is riverside. Only
    // here: the admin API refuses upper case, as its schema says.
    subdomain: values.subdomain.toLowerCase(),
    currency: values.currency,
    locale: values.locale,
    timezone: values.timezone,
  };
  // Refuse bad values before anything is read or opened.
  const checked = checkNewSchool(school, values['owner-email']);
  const runtime = await openCommandRuntime(config);
  try {
    const existing = await findUserByEmail(runtime.db, checked.ownerEmail);
    if (!existing && !values['owner-name']?.trim())
      throw new UsageError(`no account has ${checked.ownerEmail} yet: --owner-name is needed to create it`);
    const owner: FirstOwner = {
      email: checked.ownerEmail,
      name: values['owner-name'],
      passwordHash: existing ? null : await newOwnerPasswordHash(),
    };
    const founded = await foundSchool(runtime.db, school, owner);
    logSecurityEvent(runtime.logger, 'school.created', {
      schoolId: founded.school.id,
      userId: founded.owner.id,
      ownerCreated: founded.owner.created,
    });
    const { id, name, subdomain, currency, locale, timezone } = founded.school;
    console.log(
      JSON.stringify({ school: { id, name, subdomain, currency, locale, timezone }, owner: founded.owner }),
    );
  } finally {
    await runtime.close();
  }
}
