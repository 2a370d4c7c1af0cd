import { z } from 'zod';
import { problem, problems } from '../../errors/problem-error.ts';
import type { Db, Tx } from '../../store/database.ts';
import { isoNow } from '../../store/time.ts';
import { isUniqueViolation, parseValid, withTransaction } from '../kernel/checks.ts';
import { declare } from '../kernel/field-meta.ts';
import { Currency, Email, Text, worded } from '../kernel/fields.ts';
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
  /** Whether visitors may make an account at the school's site and become its students. */
  signupOpen: boolean;
  createdAt: string;
  updatedAt: string;
}

/**
 * The settings' fields as an operator writes them: each rule once (the admin API derives its
 * body). What needs more than the value stays in code: reserved subdomains, a taken subdomain,
 * the canonical spelling of a locale.
 */
export const SchoolSettingsFields = z
  .object({
    name: Text(120),
    subdomain: worded(
      z
        .string()
        .regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, 'must be a DNS label: a-z, 0-9 and inner hyphens'),
      'must be a DNS label: a-z, 0-9 and inner hyphens, ≤ 63',
    ),
    locale: worded(
      z
        .string()
        .max(35)
        .refine((v) => canonicalLocale(v) !== undefined, 'must be a BCP 47 language tag, e.g. en or pt-BR'),
      'must be a BCP 47 language tag, e.g. en or pt-BR',
    ),
    timezone: declare(
      worded(
        z.string().max(64).refine(isTimeZone, 'must be an IANA time zone, e.g. Europe/Berlin'),
        'must be an IANA time zone, e.g. Europe/Berlin',
      ),
      { kind: 'time_zone' },
    ),
    currency: Currency,
    contactEmail: worded(Email.nullable(), 'must be an email address or null'),
    betaFeatures: z.array(z.enum(BETA_FEATURES)),
    signupOpen: z
      .boolean()
      .describe('Whether visitors may sign up at the school’s site (`/schools/<subdomain>/signup`).'),
  })
  .partial();
export type SchoolSettingsPatch = z.input<typeof SchoolSettingsFields>;

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
    signupOpen: s.signup_open !== 0,
    createdAt: s.created_at,
    updatedAt: s.updated_at,
  };
}

/** True for an IANA time zone name this runtime knows (e.g. Europe/Berlin). */
function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return value.length <= 64;
  } catch {
    return false;
  }
}

/** The canonical BCP 47 form of a locale tag, or undefined. */
function canonicalLocale(value: string): string | undefined {
  try {
    return Intl.getCanonicalLocales(value)[0];
  } catch {
    return undefined;
  }
}

/** The school's settings; 404 if it does not exist. */
export async function getSchoolSettings(db: Db | Tx, schoolId: string): Promise<SchoolSettings> {
  const school = await findSchoolById(db, schoolId);
  if (!school) throw problems.notFound('No such school.');
  return toSettings(school);
}

/** The fields a new school is founded with: its identity, name and subdomain required. */
export const NewSchoolFields = SchoolSettingsFields.pick({
  name: true,
  subdomain: true,
  locale: true,
  timezone: true,
  currency: true,
}).required({ name: true, subdomain: true });

/**
 * The columns of parsed settings: what needs more than a field's rule is decided here once, for
 * the settings operators change and for a new school (school-founding.ts): a reserved subdomain
 * is a 422, a locale is stored in its canonical spelling.
 */
export function settingsColumns(patch: z.output<typeof SchoolSettingsFields>): Partial<SchoolsTable> {
  if (patch.subdomain && RESERVED_SUBDOMAINS.has(patch.subdomain))
    throw problems.validation([{ field: 'subdomain', message: 'is reserved' }]);
  return {
    name: patch.name,
    subdomain: patch.subdomain,
    locale: patch.locale && canonicalLocale(patch.locale),
    timezone: patch.timezone,
    currency: patch.currency,
    contact_email: patch.contactEmail,
    beta_features: patch.betaFeatures && JSON.stringify([...new Set(patch.betaFeatures)].sort()),
    signup_open: patch.signupOpen === undefined ? undefined : patch.signupOpen ? 1 : 0,
  };
}

/** 409 `subdomain_taken`. */
export function subdomainTaken(subdomain: string | undefined) {
  return problem('subdomain_taken', { detail: `The subdomain "${subdomain}" is taken.` });
}

/** A beta feature a change set on or off, and whether it was otherwise before. */
export interface BetaSetting {
  readonly feature: BetaFeature;
  readonly enabled: boolean;
  readonly changed: boolean;
}

/** What a settings change did: the settings after it, and each beta feature it set. */
export interface SettingsChange {
  readonly settings: SchoolSettings;
  /** Empty when the change did not name the beta features; else one entry for each it set. */
  readonly beta: readonly BetaSetting[];
}

/**
 * Changes settings and tells which beta features it set: `betaFeatures` replaces the whole list,
 * so giving it sets every feature (on when listed, off when not). Every surface that changes the
 * settings comes here, and logs `beta.toggled` from `beta`.
 */
export async function changeSchoolSettings(
  db: Db | Tx,
  schoolId: string,
  input: SchoolSettingsPatch,
): Promise<SettingsChange> {
  const parsed = parseValid(SchoolSettingsFields, input);
  return withTransaction(db, (tx) => applySettings(tx, schoolId, parsed, BETA_FEATURES));
}

/**
 * Turns one beta feature on or off and keeps the others as they are: the same change as
 * `changeSchoolSettings` with the list read and written in one transaction, reporting only this
 * feature as set.
 */
export async function switchBetaFeature(
  db: Db | Tx,
  schoolId: string,
  feature: BetaFeature,
  on: boolean,
): Promise<SettingsChange> {
  return withTransaction(db, async (tx) => {
    const current = await getSchoolSettings(tx, schoolId);
    const others = current.betaFeatures.filter((f) => f !== feature);
    const parsed = parseValid(SchoolSettingsFields, { betaFeatures: on ? [...others, feature] : others });
    return applySettings(tx, schoolId, parsed, [feature]);
  });
}

/** Writes parsed settings; `betaSet` are the features the change sets when it names the list. */
async function applySettings(
  tx: Tx,
  schoolId: string,
  parsed: z.output<typeof SchoolSettingsFields>,
  betaSet: readonly BetaFeature[],
): Promise<SettingsChange> {
  const set = settingsColumns(parsed);
  const current = await getSchoolSettings(tx, schoolId);
  if (set.subdomain && set.subdomain !== current.subdomain) {
    const other = await tx
      .selectFrom('schools')
      .select('id')
      .where('subdomain', '=', set.subdomain)
      .executeTakeFirst();
    if (other) throw subdomainTaken(set.subdomain);
  }
  try {
    await tx
      .updateTable('schools')
      .set({ ...set, updated_at: isoNow() })
      .where('id', '=', schoolId)
      .execute();
  } catch (err) {
    if (isUniqueViolation(err)) throw subdomainTaken(set.subdomain);
    throw err;
  }
  const settings = await getSchoolSettings(tx, schoolId);
  const wanted = parsed.betaFeatures;
  const beta = !wanted
    ? []
    : betaSet.map((feature) => ({
        feature,
        enabled: wanted.includes(feature),
        changed: wanted.includes(feature) !== current.betaFeatures.includes(feature),
      }));
  return { settings, beta };
}
