import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import { passwordProblem } from '../crypto/passwords.ts';
import { UsageError } from './failures.ts';

/** A command's `--options`; an unknown option or a missing value is a usage error, not a stack. */
export function parseOptions<T extends ParseArgsOptionsConfig>(argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new UsageError((err as Error).message.replace(/\.$/, ''));
  }
}

/** Everything on standard input, without its final newline. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** A new account's password, read from standard input (never an argument: `ps` would show it). */
export async function readNewPassword(): Promise<string> {
  const password = await readStdin();
  const refused = passwordProblem(password);
  if (refused) throw new UsageError(`the password (standard input) ${refused}`);
  return password;
}
