import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import { UsageError } from './failures.ts';

/** The shortest password the command line accepts (as the pages do). */
export const MIN_PASSWORD_LENGTH = 8;

/** A command's `--options`; an unknown option or a missing value is a usage error, not a stack. */
export function parseOptions<T extends ParseArgsOptionsConfig>(argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new UsageError((err as Error).message.replace(/\.$/, ''));
  }
}

/** Everything on standard input, without its final newline. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** A new account's password, read from standard input (never an argument: `ps` would show it). */
export async function readNewPassword(): Promise<string> {
  const password = await readStdin();
  if (password.length < MIN_PASSWORD_LENGTH)
    throw new UsageError(`the password (standard input) must be at least ${MIN_PASSWORD_LENGTH} characters`);
  return password;
}
