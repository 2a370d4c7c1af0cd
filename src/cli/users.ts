import type { Config } from '../config.ts';
import { hashPassword } from '../crypto/passwords.ts';
import { addRoles } from '../domain/school/memberships.ts';
import { checkPersonName, personNameMessage } from '../domain/school/person-name.ts';
import { ROLES, type Role } from '../domain/school/roles.ts';
import { findSchoolBySubdomain } from '../domain/school/schools.ts';
import { createUser } from '../domain/school/users.ts';
import { inTransaction } from '../store/database.ts';
import { openCommandRuntime } from './command-runtime.ts';
import { UsageError } from './failures.ts';
import { parseOptions, readNewPassword } from './input.ts';

/** `lectern users create --email E --name N [--school S --role R]`: the password from stdin. */
export async function usersCreate(config: Config, argv: string[]): Promise<void> {
  const values = parseOptions(argv, {
    email: { type: 'string' },
    name: { type: 'string' },
    school: { type: 'string' },
    role: { type: 'string' },
  });
  if (!values.email || !values.name) throw new UsageError('users create needs --email and --name');
  const name = checkPersonName(values.name);
  if (!name.ok) throw new UsageError(`--name ${personNameMessage(name.reason)}`);
  if (values.role && !ROLES.includes(values.role as Role))
    throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  if (values.role && !values.school) throw new UsageError('--role needs --school');
  const password = await readNewPassword();
  const runtime = await openCommandRuntime(config);
  try {
    const user = await inTransaction(runtime.db, async (tx) => {
      const created = await createUser(tx, {
        email: values.email!,
        name: name.name,
        passwordHash: await hashPassword(password),
      });
      if (values.school) {
        const school = await findSchoolBySubdomain(tx, values.school);
        if (!school) throw new UsageError(`no school with subdomain ${values.school}`);
        await addRoles(tx, school.id, created.id, [(values.role ?? 'student') as Role]);
      }
      return created;
    });
    console.log(JSON.stringify({ id: user.id, email: user.email }));
  } finally {
    await runtime.close();
  }
}
