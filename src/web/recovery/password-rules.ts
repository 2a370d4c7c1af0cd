import { passwordProblem } from '../../crypto/passwords.ts';

/**
 * What is wrong with a new password and its confirmation, in words for the form, or undefined.
 * The rule itself is `passwordProblem` (the CLI and the invitation page use it too).
 */
export function checkNewPassword(password: string, confirm: string): string | undefined {
  const problem = passwordProblem(password);
  if (problem) return `The new password ${problem}.`;
  if (password !== confirm) return 'The two passwords differ. Enter the same new password twice.';
  return undefined;
}
