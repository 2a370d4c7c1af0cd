import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from './views.ts';

/**
 * What is wrong with a new password and its confirmation, in words for the form, or undefined.
 * One rule for the reset link and the account page.
 */
export function checkNewPassword(password: string, confirm: string): string | undefined {
  if (password.length < MIN_PASSWORD_LENGTH)
    return `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.`;
  // argon2's cost grows with the input; 1 KiB is far beyond any passphrase.
  if (password.length > MAX_PASSWORD_LENGTH)
    return `Choose a password of at most ${MAX_PASSWORD_LENGTH} characters.`;
  if (password.includes('\u0000')) return 'The password cannot contain a NUL character.';
  if (password !== confirm) return 'The two passwords differ. Enter the same new password twice.';
  return undefined;
}
