import { problem, problems } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { Checks, isUniqueViolation, withTransaction } from '../kernel/checks.ts';
import { Email } from '../kernel/fields.ts';
import type { SchoolsTable } from '../kernel/tables.ts';
import { BETA_FEATURES, type BetaFeature, betaFeatures, findSchoolById } from './schools.ts';

/** The settings of a school as operators see and change them. */
export interface SchoolSettings {
  id: string;
  name: string;
  subdomain: string;
  locale: string;
  timezone: string;
  currency: string;
  contactEmail: string | null;
  betaFeatures: BetaFeature[];
  createdAt: string;
  updatedAt: string;
}

export type SchoolSettingsPatch = Partial<Omit<SchoolSettings, 'id' | 'createdAt' | 'updatedAt'>>;

/** Subdomains that would shadow the service's own hosts. */
const RESERVED_SUBDOMAINS = new Set([
  'www',
  'api',
  'admin',
  'app',
  'auth',
  'login',
  'mail',
  'static',
  'docs',
]);

function toSettings(s: SchoolsTable): SchoolSettings {
  return {
    id: s.id,
    name: s.name,
    subdomain: s.subdomain,
    locale: s.locale,
    timezone: s.timezone,
    currency: s.currency,
    contactEmail: s.contact_email,
    betaFeatures: betaFeatures(s),
    createdAt: s.created_at,
    updatedAt: s.updated_at,
  };
}

/** True for an IANA time zone name this runtime knows (e.g. Europe/Berlin). */
export function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return value.length <= 64;
  } catch {
    return false;
  }
}

/** The canonical BCP 47 form of a locale tag, or undefined. */
export function canonicalLocale(value: string): string | undefined {
  try {
    return Intl.getCanonicalLocales(value)[0];
  } catch {
    return undefined;
  }
}

/**
 * The field rules of a school's identity (name, subdomain, locale, time zone, currency), checked
 * once for every path that sets them: the settings operators change and a new school
 * (school-founding.ts). Failures are recorded on `c`; the returned columns hold what passed.
 */
export function checkSchoolFields(
  c: Checks,
  patch: Pick<SchoolSettingsPatch, 'name' | 'subdomain' | 'locale' | 'timezone' | 'currency'>,
): Partial<SchoolsTable> {
  const set: Partial<SchoolsTable> = {};
  if (patch.name !== undefined) set.name = c.text('name', patch.name, 120);
  if (patch.subdomain !== undefined) {
    const sub = typeof patch.subdomain === 'string' ? patch.subdomain.toLowerCase() : '';
    if (!/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(sub))
      c.fail('subdomain', 'must be a DNS label: a-z, 0-9 and inner hyphens, ≤ 63');
    else if (RESERVED_SUBDOMAINS.has(sub)) c.fail('subdomain', 'is reserved');
    set.subdomain = sub;
  }
  if (patch.locale !== undefined) {
    const locale = typeof patch.locale === 'string' ? canonicalLocale(patch.locale) : undefined;
    if (!locale) c.fail('locale', 'must be a BCP 47 language tag, e.g. en or pt-BR');
    set.locale = locale;
  }
  if (patch.timezone !== undefined) {
    if (typeof patch.timezone !== 'string' || !isTimeZone(patch.timezone))
      c.fail('timezone', 'must be an IANA time zone, e.g. Europe/Berlin');
    set.timezone = patch.timezone;
  }
  if (patch.currency !== undefined) set.currency = c.currency('currency', patch.currency);
  return set;
}

/** 409 `subdomain_taken`. */
export function subdomainTaken(subdomain: string | undefined) {
  return problem('subdomain_taken', { detail: `The subdomain "${subdomain}" is taken.` });
}

/** The school's settings; 404 if it does not exist. */
export async function getSchoolSettings(db: Db | Tx, schoolId: string): Promise<SchoolSettings> {
  const school = await findSchoolById(db, schoolId);
  if (!school) throw problems.notFound('No such school.');
  return toSettings(school);
}

/** Changes settings; a taken subdomain is a 409 `subdomain_taken`. */
export async function updateSchoolSettings(
  db: Db | Tx,
  schoolId: string,
  patch: SchoolSettingsPatch,
): Promise<SchoolSettings> {
  const c = new Checks();
  const set = checkSchoolFields(c, patch);
  if (patch.contactEmail !== undefined) {
    const email = patch.contactEmail;
    if (email !== null && !Email.safeParse(email).success)
      c.fail('contactEmail', 'must be an email address or null');
    set.contact_email = email;
  }
  if (patch.betaFeatures !== undefined) {
    const list = Array.isArray(patch.betaFeatures) ? patch.betaFeatures : [];
    for (const f of list)
      if (!BETA_FEATURES.includes(f)) c.fail('betaFeatures', `unknown feature ${String(f)}`);
    set.beta_features = JSON.stringify([...new Set(list)].sort());
  }
  c.done();
  return withTransaction(db, async (tx) => {
    const current = await getSchoolSettings(tx, schoolId);
    const taken = () => subdomainTaken(set.subdomain);
    if (set.subdomain && set.subdomain !== current.subdomain) {
      const other = await tx
        .selectFrom('schools')
        .select('id')
        .where('subdomain', '=', set.subdomain)
        .executeTakeFirst();
      if (other) throw taken();
    }
    try {
      await tx
        .updateTable('schools')
        .set({ ...set, updated_at: isoNow() })
        .where('id', '=', schoolId)
        .execute();
    } catch (err) {
      if (isUniqueViolation(err)) throw taken();
      throw err;
    }
    return getSchoolSettings(tx, schoolId);
  });
}
