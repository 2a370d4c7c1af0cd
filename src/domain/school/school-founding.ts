import { problems } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import { Checks, isUniqueViolation, withTransaction } from '../kernel/checks.ts';
import { Email } from '../kernel/fields.ts';
import { createInvitation, type IssuedInvitation } from './invitations.ts';
import { addRoles } from './memberships.ts';
import { validPersonName } from './person-name.ts';
import {
  getSchoolSettings,
  NewSchoolFields,
  type SchoolSettings,
  settingsColumns,
  subdomainTaken,
} from './school-settings.ts';
import { createSchool, findSchoolBySubdomain } from './schools.ts';
import { createUser, findUserByEmail, normalizeEmail } from './users.ts';

/** What a new school is made of; the optional settings take createSchool's defaults. */
export interface NewSchool {
  name: string;
  subdomain: string;
  currency?: string;
  locale?: string;
  timezone?: string;
}

/** The first owner: an existing account (found by email) or a new one with this name and password. */
export interface FirstOwner {
  email: string;
  /** Needed only when no account has the email. */
  name?: string;
  /**
   * The new account's password hash; null makes an account with no password yet (a set-password
   * link then lets the owner in). Ignored for an existing account, whose password never changes.
   */
  passwordHash: string | null;
}

export interface FoundedSchool {
  school: SchoolSettings;
  owner: { id: string; email: string; name: string; created: boolean };
}

/**
 * Checks a new school and its owner's email with the same field rules as the school's settings;
 * a failure is a 422 `validation_failed` listing each field. Returns the school's columns.
 */
export function checkNewSchool(input: NewSchool, ownerEmail: string): NewSchool & { ownerEmail: string } {
  const c = new Checks();
  const parsed = c.parse(NewSchoolFields, input);
  const email = Email.safeParse(ownerEmail);
  if (!email.success) c.fail('ownerEmail', 'must be an email address');
  c.done();
  const fields = settingsColumns(parsed);
  return {
    name: fields.name!,
    subdomain: fields.subdomain!,
    currency: fields.currency,
    locale: fields.locale,
    timezone: fields.timezone,
    ownerEmail: normalizeEmail(ownerEmail),
  };
}

// The school row itself: a taken subdomain is a 409 `subdomain_taken`, even when a concurrent
// call took it between the look-up and the insert.
async function createNewSchool(tx: Tx, checked: NewSchool) {
  if (await findSchoolBySubdomain(tx, checked.subdomain)) throw subdomainTaken(checked.subdomain);
  try {
    return await createSchool(tx, checked);
  } catch (err) {
    if (isUniqueViolation(err)) throw subdomainTaken(checked.subdomain);
    throw err;
  }
}

/**
 * Creates a school and makes its first owner, in one transaction: a taken subdomain (409
 * `subdomain_taken`) or any other failure writes nothing.
 */
export function foundSchool(db: Db | Tx, input: NewSchool, owner: FirstOwner): Promise<FoundedSchool> {
  const checked = checkNewSchool(input, owner.email);
  return withTransaction(db, async (tx) => {
    const school = await createNewSchool(tx, checked);
    const existing = await findUserByEmail(tx, checked.ownerEmail);
    if (!existing && !owner.name?.trim()) {
      throw problems.validation(
        [{ field: 'ownerName', message: 'is required: no account has this email yet' }],
        'No account has this email: the new owner needs a name.',
      );
    }
    const user =
      existing ??
      (await createUser(tx, {
        email: checked.ownerEmail,
        name: validPersonName(owner.name ?? '', 'ownerName'),
        passwordHash: owner.passwordHash,
      }));
    await addRoles(tx, school.id, user.id, ['owner']);
    return {
      school: await getSchoolSettings(tx, school.id),
      owner: { id: user.id, email: user.email, name: user.name, created: !existing },
    };
  });
}

/**
 * Creates a school whose first owner comes in through a one-time link: an owner invitation for
 * the email (a new person sets name and password; an existing account signs in and accepts), in
 * the same transaction as the school. The token is returned once; only its hash is stored.
 */
export function foundSchoolByInvitation(
  db: Db | Tx,
  input: NewSchool,
  ownerEmail: string,
): Promise<{ school: SchoolSettings } & IssuedInvitation> {
  const checked = checkNewSchool(input, ownerEmail);
  return withTransaction(db, async (tx) => {
    const school = await createNewSchool(tx, checked);
    const issued = await createInvitation(tx, school.id, {
      email: checked.ownerEmail,
      roles: ['owner'],
      invitedByUserId: null,
      // Printed for the deployment's operator to hand on: it does not prove the mailbox.
      emailed: false,
    });
    return { school: await getSchoolSettings(tx, school.id), ...issued };
  });
}
