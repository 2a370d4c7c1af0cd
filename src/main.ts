/**
 * The `lectern` command: serve (default), migrate, seed, schools create, users create, keys
 * rotate. Reads configuration from the environment once (config.ts) and everything else from its
 * arguments; the commands beyond serve live in src/cli/, how they fail in cli/failures.ts.
 */
import { startBackground } from './background.ts';
import { openCommandRuntime } from './cli/command-runtime.ts';
import { CliFailure, type DatabaseWhere, EXIT, explainFailure, UsageError } from './cli/failures.ts';
import { schoolsCreate } from './cli/schools.ts';
import { usersCreate } from './cli/users.ts';
import { type Config, loadConfig } from './config.ts';
import { rotateSigningKey } from './crypto/signing-keys.ts';
import { DEMO_ACCOUNTS, seedDemoData } from './domain/demo/demo-seed.ts';
import { logSecurityEvent } from './http/security-log.ts';
import { listen, openRuntime, type RunningServer, type Runtime } from './runtime.ts';

const USAGE = `usage: lectern [command]

commands:
  serve                       start the HTTP server (default); migrates, seeds demo data if enabled
  worker                      deliver webhooks and run housekeeping, without HTTP (for
                              deployments that run serve with WEBHOOK_WORKER=false)
  migrate                     apply pending database migrations and name each one
  seed                        add the demo data (idempotent; refused when NODE_ENV=production)
  schools create --name N --subdomain S --owner-email E [--owner-name N | --link]
                 [--currency C] [--locale L] [--timezone TZ]
                              create a school and its first owner; a new owner's password is
                              read from standard input (an existing account keeps its own), or
                              with --link a one-time link for the owner is printed instead
  users create --email E --name N [--school SUBDOMAIN --role ROLE]
                              create a user; the password is read from standard input
  keys rotate                 make a new id_token signing key; the old one stays in the JWKS
                              until every token it signed has expired; prints the new kid
`;

async function serveCommand(config: Config): Promise<void> {
  const runtime = await openRuntime(config);
  if (config.seedDemo) {
    const seeded = await seedDemoData(runtime.db);
    // Logs are shipped and kept: name the accounts, never the password (README lists it).
    if (seeded.created) {
      runtime.logger.info(
        { demoAccounts: DEMO_ACCOUNTS },
        'demo data created; demo passwords are in the README',
      );
    }
  }
  if (runtime.migrated.length > 0)
    runtime.logger.info({ migrations: runtime.migrated }, 'migrations applied');
  let server: RunningServer;
  try {
    // Loaded here: every other command (migrate, users, --help…) starts without the HTTP surfaces.
    const { createApp } = await import('./app.ts');
    server = await listen(createApp(runtime), config.host, config.port);
  } catch (err) {
    await runtime.close();
    throw err;
  }
  runtime.logger.info(
    { url: server.url, baseUrl: config.baseUrl, db: config.database.engine },
    'lectern listening',
  );
  const background = startBackground(runtime, { worker: config.webhooks.worker });
  stopOnSignal(runtime, 'shutting down: finishing in-flight requests', async () => {
    await server.shutdown();
    await background.stop();
  });
}

/** `lectern worker`: webhook delivery and housekeeping without HTTP, for split deployments. */
async function workerCommand(config: Config): Promise<void> {
  const runtime = await openRuntime(config, { syncClients: false });
  const background = startBackground(runtime, { worker: true });
  runtime.logger.info({ instance: background.worker?.instanceId }, 'lectern worker running');
  stopOnSignal(runtime, 'shutting down: finishing deliveries in flight', () => background.stop());
}

/** On SIGINT/SIGTERM: log `message`, finish (`drain`), close the database, log `stopped`, exit 0. */
function stopOnSignal(runtime: Runtime, message: string, drain: () => Promise<void>): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    runtime.logger.info({ signal }, message);
    await drain();
    await runtime.close();
    runtime.logger.info('stopped');
    process.exit(0);
  };
  // `on`, not `once`: a second signal while draining (Ctrl-C reaches both `bin/lectern.js` and
  // the server, and the wrapper forwards its own) must not kill the process mid-drain.
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

/** `lectern migrate`: names each migration it applied, or says that none was pending. */
async function migrateCommand(config: Config): Promise<void> {
  const runtime = await openCommandRuntime(config);
  await runtime.close();
  for (const name of runtime.migrated) console.log(`applied ${name}`);
  console.log(
    runtime.migrated.length > 0
      ? `${runtime.migrated.length} migration(s) applied`
      : 'no pending migrations: the database is up to date',
  );
}

/** `lectern seed`: the demo accounts share a published password, so never in production. */
async function seedCommand(config: Config): Promise<void> {
  if (config.env === 'production') {
    throw new CliFailure(
      'seed refused: NODE_ENV=production, and the demo accounts have a published password; nothing was written',
      EXIT.refused,
    );
  }
  const runtime = await openCommandRuntime(config);
  try {
    const result = await seedDemoData(runtime.db);
    console.log(result.created ? 'demo data created' : 'demo data already present');
  } finally {
    await runtime.close();
  }
}

async function keysRotate(config: Config): Promise<void> {
  const runtime = await openCommandRuntime(config);
  try {
    const { kid } = await rotateSigningKey(runtime);
    logSecurityEvent(runtime.logger, 'signing_key.rotated', { kid });
    console.log(kid);
  } finally {
    await runtime.close();
  }
}

let databaseWhere: DatabaseWhere | undefined;

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', sub, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  const config = loadConfig();
  databaseWhere = config.database;
  if (command === 'serve') return serveCommand(config);
  if (command === 'worker') return workerCommand(config);
  if (command === 'migrate') return migrateCommand(config);
  if (command === 'seed') return seedCommand(config);
  if (command === 'schools' && sub === 'create') return schoolsCreate(config, rest);
  if (command === 'users' && sub === 'create') return usersCreate(config, rest);
  if (command === 'keys' && sub === 'rotate') return keysRotate(config);
  throw new UsageError(`unknown command: ${[command, sub].filter(Boolean).join(' ')}`);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof UsageError) {
    console.error(`lectern: ${err.message}\n\n${USAGE}`);
    process.exit(EXIT.usage);
  }
  const failure = explainFailure(err, databaseWhere);
  if (failure) {
    console.error(`lectern: ${failure.message}`);
    process.exit(failure.exitCode);
  }
  console.error('lectern: fatal error', err);
  process.exit(EXIT.fatal);
});
