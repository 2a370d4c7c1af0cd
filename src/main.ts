/**
 * The `lectern` command: serve (default), migrate, seed, users create, keys rotate. Reads
 * configuration from the environment once (config.ts) and everything else from its arguments.
 */
import { parseArgs } from 'node:util';
import { createApp } from './app.ts';
import { startBackground } from './background.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { hashPassword } from './crypto/passwords.ts';
import { rotateSigningKey } from './crypto/signing-keys.ts';
import { DEMO_ACCOUNTS, seedDemoData } from './domain/demo/demo-seed.ts';
import { addRoles } from './domain/school/memberships.ts';
import { ROLES, type Role } from './domain/school/roles.ts';
import { findSchoolBySubdomain } from './domain/school/schools.ts';
import { createUser } from './domain/school/users.ts';
import { listen, openRuntime, type Runtime } from './runtime.ts';
import { inTransaction } from './store/database.ts';

const USAGE = `usage: lectern [command]

commands:
  serve                       start the HTTP server (default); migrates, seeds demo data if enabled
  worker                      deliver webhooks and run housekeeping, without HTTP (for
                              deployments that run serve with WEBHOOK_WORKER=false)
  migrate                     apply pending database migrations
  seed                        add the demo data (idempotent)
  users create --email E --name N [--school SUBDOMAIN --role ROLE]
                              create a user; the password is read from standard input
  keys rotate                 make a new id_token signing key; the old one stays in the JWKS
                              until every token it signed has expired; prints the new kid
`;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

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
  const app = createApp(runtime);
  const server = await listen(app, config.host, config.port);
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
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

async function usersCreate(config: Config, argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      email: { type: 'string' },
      name: { type: 'string' },
      school: { type: 'string' },
      role: { type: 'string' },
    },
  });
  if (!values.email || !values.name) throw new UsageError('users create needs --email and --name');
  if (values.role && !ROLES.includes(values.role as Role))
    throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  if (values.role && !values.school) throw new UsageError('--role needs --school');
  const password = await readStdin();
  if (password.length < 8)
    throw new UsageError('the password (standard input) must be at least 8 characters');
  const runtime = await openRuntime(config, { syncClients: false });
  try {
    const user = await inTransaction(runtime.db, async (tx) => {
      const created = await createUser(tx, {
        email: values.email!,
        name: values.name!,
        passwordHash: await hashPassword(password),
      });
      if (values.school) {
        const school = await findSchoolBySubdomain(tx, values.school);
        if (!school) throw new UsageError(`no school with subdomain ${values.school}`);
        await addRoles(tx, school.id, created.id, [(values.role ?? 'student') as Role]);
      }
      return created;
    });
    console.log(JSON.stringify({ id: user.id, email: user.email }));
  } finally {
    await runtime.close();
  }
}

class UsageError extends Error {}

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', sub, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  const config = loadConfig();
  if (command === 'serve') return serveCommand(config);
  if (command === 'worker') return workerCommand(config);
  if (command === 'migrate') {
    const runtime = await openRuntime(config, { processMetrics: false, syncClients: false });
    await runtime.close();
    console.log('migrations applied');
    return;
  }
  if (command === 'seed') {
    const runtime = await openRuntime(config, { processMetrics: false, syncClients: false });
    try {
      const result = await seedDemoData(runtime.db);
      console.log(result.created ? 'demo data created' : 'demo data already present');
    } finally {
      await runtime.close();
    }
    return;
  }
  if (command === 'users' && sub === 'create') return usersCreate(config, rest);
  if (command === 'keys' && sub === 'rotate') {
    const runtime = await openRuntime(config, { processMetrics: false, syncClients: false });
    try {
      console.log((await rotateSigningKey(runtime)).kid);
    } finally {
      await runtime.close();
    }
    return;
  }
  throw new UsageError(`unknown command: ${[command, sub].filter(Boolean).join(' ')}`);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof ConfigError) {
    console.error(`lectern: configuration error: ${err.message}`);
    process.exit(78);
  }
  if (err instanceof UsageError) {
    console.error(`lectern: ${err.message}\n\n${USAGE}`);
    process.exit(64);
  }
  const problem = err as { code?: string; detail?: string; message?: string };
  if (problem.code === 'email_taken') {
    console.error(`lectern: ${problem.detail}`);
    process.exit(65);
  }
  console.error('lectern: fatal error', err);
  process.exit(1);
});
