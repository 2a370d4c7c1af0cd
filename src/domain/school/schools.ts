import { newId } from '../../crypto/ids.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import type { SchoolsTable } from '../kernel/tables.ts';

export type School = SchoolsTable;

/** Beta features a school can switch on. */
export const BETA_FEATURES = ['mcp_connections'] as const;
export type BetaFeature = (typeof BETA_FEATURES)[number];

/** A school by id, or undefined. */
export function findSchoolById(db: Db | Tx, id: string): Promise<School | undefined> {
  return db.selectFrom('schools').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A school by subdomain, or undefined. */
export function findSchoolBySubdomain(db: Db | Tx, subdomain: string): Promise<School | undefined> {
  return db
    .selectFrom('schools')
    .selectAll()
    .where('subdomain', '=', subdomain.toLowerCase())
    .executeTakeFirst();
}

/** Creates a school with its default appearance. */
export async function createSchool(
  db: Db | Tx,
  input: {
    name: string;
    subdomain: string;
    locale?: string;
    timezone?: string;
    currency?: string;
    contactEmail?: string;
  },
): Promise<School> {
  const now = isoNow();
  const school: School = {
    id: newId('sch'),
    name: input.name,
    subdomain: input.subdomain.toLowerCase(),
    locale: input.locale ?? 'en',
    timezone: input.timezone ?? 'UTC',
    currency: input.currency ?? 'USD',
    contact_email: input.contactEmail ?? null,
    beta_features: '[]',
    signup_open: 1,
    created_at: now,
    updated_at: now,
  };
  await db.insertInto('schools').values(school).execute();
  await db
    .insertInto('appearance')
    .values({
      school_id: school.id,
      primary_color: '#1f4b99',
      accent_color: '#f2a93b',
      font: 'system-ui',
      logo_file_id: null,
      updated_at: now,
    })
    .execute();
  return school;
}

/** The beta features a school has on. */
export function betaFeatures(school: Pick<School, 'beta_features'>): BetaFeature[] {
  try {
    const raw = JSON.parse(school.beta_features);
    return Array.isArray(raw) ? BETA_FEATURES.filter((f) => raw.includes(f)) : [];
  } catch {
    return [];
  }
}

/** Switches one beta feature on or off. */
export async function setBetaFeature(
  db: Db | Tx,
  schoolId: string,
  feature: BetaFeature,
  on: boolean,
): Promise<void> {
  const school = await findSchoolById(db, schoolId);
  if (!school) return;
  const current = new Set(betaFeatures(school));
  if (on) current.add(feature);
  else current.delete(feature);
  await db
    .updateTable('schools')
    .set({ beta_features: JSON.stringify([...current].sort()), updated_at: isoNow() })
    .where('id', '=', schoolId)
    .execute();
}
