/**
 * How the `lectern` command fails: one line on standard error and an exit code a script can tell
 * apart (sysexits.h numbers, listed in docs/operations.md). Stack traces are kept for
 * what nobody foresaw (exit 1): a known operational failure is the operator's to fix, and a
 * screenful of driver frames only hides the one line that says how.
 */
import { ConfigError } from '../config.ts';
import { ProblemError } from '../errors/problem-error.ts';

export const EXIT = {
  /** Something unforeseen (a bug): the message and its stack. */
  fatal: 1,
  /** Unknown command or option, missing or malformed argument (EX_USAGE). */
  usage: 64,
  /** A value the domain refuses, or an email already taken (EX_DATAERR). */
  data: 65,
  /** The PostgreSQL database named in DATABASE_URL does not exist (EX_NOINPUT). */
  noDatabase: 66,
  /** The database server cannot be reached or refuses the login (EX_UNAVAILABLE). */
  unavailable: 69,
  /** The address to listen on is in use or not ours to take (EX_OSERR). */
  listen: 71,
  /** What should be created exists already: a school's subdomain is taken (EX_CANTCREAT). */
  exists: 73,
  /** The command is refused in this environment: demo data in production (EX_NOPERM). */
  refused: 77,
  /** A bad setting (EX_CONFIG). */
  config: 78,
} as const;

/** A wrong invocation: its message, then the usage text. */
export class UsageError extends Error {}

/** A failure already worded for the operator, with its exit code. */
export class CliFailure extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** Where the database is, as safe to print: host, port and database name, never the password. */
export interface DatabaseWhere {
  engine: 'sqlite' | 'postgres';
  url: string;
}

function describeDatabase(where: DatabaseWhere | undefined): { at: string; name: string } {
  if (where?.engine !== 'postgres') return { at: 'the database', name: '' };
  try {
    const url = new URL(where.url);
    const name = decodeURIComponent(url.pathname.replace(/^\//, '')) || url.username;
    return { at: `PostgreSQL at ${url.hostname}:${url.port || '5432'}`, name };
  } catch {
    return { at: 'PostgreSQL', name: '' };
  }
}

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
]);

/** The error and every `cause` beneath it (Kysely and our migrator wrap the driver's error). */
function chain(err: unknown): Array<{ code?: unknown; message?: unknown; syscall?: unknown }> {
  const seen: Array<{ code?: unknown; message?: unknown; syscall?: unknown }> = [];
  let current = err as { cause?: unknown } | undefined;
  while (current && typeof current === 'object' && seen.length < 10) {
    seen.push(current as never);
    current = current.cause as { cause?: unknown } | undefined;
  }
  return seen;
}

function databaseFailure(err: unknown, where: DatabaseWhere | undefined): CliFailure | undefined {
  const { at, name } = describeDatabase(where);
  for (const e of chain(err)) {
    if (e.code === '3D000') {
      return new CliFailure(
        `the database "${name}" does not exist on ${at}: create it (createdb ${name}) or correct DATABASE_URL`,
        EXIT.noDatabase,
      );
    }
    if (e.code === '28P01' || e.code === '28000') {
      return new CliFailure(
        `${at} refused the login (${String(e.message)}): check the user and password in DATABASE_URL`,
        EXIT.unavailable,
      );
    }
    if (typeof e.code === 'string' && UNREACHABLE.has(e.code) && e.syscall !== 'listen') {
      return new CliFailure(
        `cannot reach ${at} (${e.code}): check DATABASE_URL and that the server is running`,
        EXIT.unavailable,
      );
    }
  }
  return undefined;
}

function listenFailure(err: unknown): CliFailure | undefined {
  const e = err as { code?: string; syscall?: string; address?: string; port?: number };
  if (e?.syscall !== 'listen') return undefined;
  const where = `${e.address ?? ''}:${e.port ?? ''}`;
  if (e.code === 'EADDRINUSE') {
    return new CliFailure(
      `${where} is already in use: stop what listens there or set PORT/HOST`,
      EXIT.listen,
    );
  }
  if (e.code === 'EACCES' || e.code === 'EADDRNOTAVAIL') {
    return new CliFailure(`cannot listen on ${where} (${e.code}): choose another PORT/HOST`, EXIT.listen);
  }
  return undefined;
}

function problemFailure(err: unknown): CliFailure | undefined {
  if (!(err instanceof ProblemError)) return undefined;
  if (err.code === 'subdomain_taken')
    return new CliFailure(`${err.detail} Nothing was created.`, EXIT.exists);
  if (err.code === 'email_taken') return new CliFailure(err.detail ?? err.title, EXIT.data);
  if (err.code === 'validation_failed') {
    const fields = (err.errors ?? []).map((f) => `${f.field} ${f.message}`).join('; ');
    return new CliFailure(`invalid input: ${fields || err.detail}`, EXIT.data);
  }
  return undefined;
}

/** The line and exit code for a failure, or undefined when it is unforeseen (then: exit 1 with the stack). */
export function explainFailure(err: unknown, where?: DatabaseWhere): CliFailure | undefined {
  if (err instanceof CliFailure) return err;
  if (err instanceof ConfigError) return new CliFailure(`configuration error: ${err.message}`, EXIT.config);
  return problemFailure(err) ?? listenFailure(err) ?? databaseFailure(err, where);
}
