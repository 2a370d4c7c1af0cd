import { problems } from '../../errors/problem-error.ts';

/**
 * The one rule for a person's name, whoever sets it: the account settings page, sign-up at a
 * school's site, joining through an invitation, the Account API's `updateViewerName` and the CLI.
 * Each surface asks `checkPersonName` and puts the reason into its own words.
 */

/** The longest name, in characters, after trimming. */
export const PERSON_NAME_MAX = 200;

/** Why a name is refused. */
export type PersonNameRefusal = 'empty' | 'too_long' | 'control_character';

/** A name as stored (trimmed), or why it is refused. */
export type CheckedPersonName =
  | { readonly ok: true; readonly name: string }
  | { readonly ok: false; readonly reason: PersonNameRefusal };

// C0 and C1 controls (NUL among them, which PostgreSQL text cannot hold) and the bidirectional
// embeddings, overrides and isolates (Unicode TR 9 §2), which let a name reorder the text
// around it wherever it is shown.
const CONTROL = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/u;

/** Trims `raw` and checks it: 1 to PERSON_NAME_MAX characters, no control characters. */
export function checkPersonName(raw: string): CheckedPersonName {
  const name = raw.trim();
  if (name.length === 0) return { ok: false, reason: 'empty' };
  if (name.length > PERSON_NAME_MAX) return { ok: false, reason: 'too_long' };
  if (CONTROL.test(name)) return { ok: false, reason: 'control_character' };
  return { ok: true, name };
}

/** The API's sentence for a refused name (GraphQL `fields`, problem `errors`). */
export function personNameMessage(reason: PersonNameRefusal): string {
  return reason === 'control_character'
    ? 'must not contain control or text-direction characters'
    : `must be a non-empty string of at most ${PERSON_NAME_MAX} characters`;
}

/** The name as stored, or a thrown 422 `validation_failed` naming `field`. */
export function validPersonName(raw: string, field = 'name'): string {
  const checked = checkPersonName(raw);
  if (!checked.ok) throw problems.validation([{ field, message: personNameMessage(checked.reason) }]);
  return checked.name;
}
