/**
 * What an operator changes about the school itself, shared by the admin REST API, its MCP tools
 * and the `/admin` pages: one domain change (domain/school/school-settings.ts) and the security
 * log line it leaves, whichever surface asked.
 */
import {
  type BetaSetting,
  changeSchoolSettings,
  type SchoolSettings,
  type SchoolSettingsPatch,
  switchBetaFeature,
} from '../domain/school/school-settings.ts';
import type { BetaFeature } from '../domain/school/schools.ts';
import { currentEventScope } from '../events/context.ts';
import { logSecurityEvent } from '../http/security-log.ts';
import type { ActionScope } from './member-actions.ts';

/** `beta.toggled` for each beta feature the change set: who, which feature, on or off. */
function logBeta(s: ActionScope, beta: readonly BetaSetting[]): void {
  for (const { feature, enabled, changed } of beta) {
    logSecurityEvent(s.app.logger, 'beta.toggled', {
      schoolId: s.schoolId,
      actorUserId: s.actor.userId,
      clientId: s.actor.clientId ?? null,
      requestId: s.actor.requestId ?? currentEventScope().requestId ?? undefined,
      feature,
      enabled,
      changed,
    });
  }
}

/** Changes the school's settings (`betaFeatures` replaces the list); logs each beta feature set. */
export async function updateSettings(s: ActionScope, patch: SchoolSettingsPatch): Promise<SchoolSettings> {
  const change = await changeSchoolSettings(s.db, s.schoolId, patch);
  logBeta(s, change.beta);
  return change.settings;
}

/** Turns one beta feature on or off, the others kept; logs it. */
export async function switchBeta(s: ActionScope, feature: BetaFeature, on: boolean): Promise<SchoolSettings> {
  const change = await switchBetaFeature(s.db, s.schoolId, feature, on);
  logBeta(s, change.beta);
  return change.settings;
}
