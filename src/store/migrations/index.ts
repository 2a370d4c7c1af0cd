import type { Migration, MigrationProvider } from 'kysely';
import * as identity from './0001-identity.ts';
import * as oauth from './0002-oauth.ts';
import * as catalog from './0003-catalog.ts';
import * as commerce from './0004-commerce.ts';
import * as community from './0005-community.ts';
import * as bigintAmounts from './0006-bigint-amounts.ts';
import * as invitations from './0007-invitations.ts';
import * as passwordResets from './0008-password-resets.ts';
import * as memberAppSecrets from './0009-member-app-secrets.ts';
import * as events from './0010-events.ts';
import * as accountTrust from './0011-account-trust.ts';
import * as refreshReuseGrace from './0012-refresh-reuse-grace.ts';
import * as fanOutRule from './0013-fan-out-rule.ts';
import * as schoolSite from './0014-school-site.ts';
import * as fileUploader from './0015-file-uploader.ts';
import * as payments from './0016-payments.ts';

/** Every migration, in order. Names sort; a new one is appended with the next number. */
export const migrations: Record<string, Migration> = {
  '0001_identity': identity,
  '0002_oauth': oauth,
  '0003_catalog': catalog,
  '0004_commerce': commerce,
  '0005_community': community,
  '0006_bigint_amounts': bigintAmounts,
  '0007_invitations': invitations,
  '0008_password_resets': passwordResets,
  '0009_member_app_secrets': memberAppSecrets,
  '0010_events': events,
  '0011_account_trust': accountTrust,
  '0012_refresh_reuse_grace': refreshReuseGrace,
  '0013_fan_out_rule': fanOutRule,
  '0014_school_site': schoolSite,
  '0015_file_uploader': fileUploader,
  '0016_payments': payments,
};

/** A provider that serves the static list above (no file-system scanning). */
export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
