/**
 * The commands of the README and the operations guide are documents too: each npm script,
 * `lectern` command and setting they show exists, and the operations guide's "Running on
 * PostgreSQL" runs as written, every block of it in one shell (the test database in place of
 * db.internal, generated values in place of `...`, the owner's password typed on standard input),
 * ending with the owner signing in.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { addRoles } from '../../src/domain/school/memberships.ts';
import { createSchool } from '../../src/domain/school/schools.ts';
import { createUser } from '../../src/domain/school/users.ts';
import { listen } from '../../src/runtime.ts';
import { type Db, openDatabase } from '../../src/store/database.ts';
import { createTestApp } from '../support/app.ts';
import { createTestDatabase, ENGINE, type TestDatabase } from '../support/database.ts';
import { docBlocks } from '../support/doc-runner.ts';
import { freePort } from '../support/ports.ts';
import { issueTestToken } from '../support/tokens.ts';
import { cliEnv, runLectern } from './run.ts';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const README = read('README.md');
/** The production start, the `lectern` commands and their exit codes. */
const OPERATIONS = read('docs/operations.md');
/** The environment variables, one table row each. */
const CONFIGURATION = read('docs/configuration.md');
/** The commands a developer runs (tests, lint, bench). */
const DEVELOPMENT = read('docs/development.md');
const PACKAGE = JSON.parse(read('package.json'));
const shell = [README, OPERATIONS, DEVELOPMENT]
  .flatMap((doc) => docBlocks(doc))
  .filter((b) => b.lang === 'sh');
/** The section "Running on PostgreSQL", up to the next `## ` heading: the production walk. */
const walkText = OPERATIONS.slice(
  OPERATIONS.indexOf('## Running on PostgreSQL'),
  OPERATIONS.indexOf('\n## ', OPERATIONS.indexOf('## Running on PostgreSQL') + 1),
);
// Steps 1–4 run in one shell (serve last); the invitation step needs an operator token and runs
// on its own below.
const walk = docBlocks(walkText).filter((b) => b.lang === 'sh' && !b.code.includes('$TOKEN'));
const postgres = walk.length > 0 ? { code: walk.map((b) => b.code).join('\n') } : undefined;
const commandLine = docBlocks(OPERATIONS).find((b) => b.heading === '## Command line');
const SECRET = randomBytes(32).toString('base64url');
const METRICS = randomBytes(32).toString('base64url');
const OWNER_PASSWORD = `owner ${randomBytes(9).toString('base64url')}`;
/** What each `...` of the walk stands for. */
const SUPPLIED: Record<string, string> = { LECTERN_SECRET: SECRET, METRICS_TOKEN: METRICS };

/** `export A=x B=y` lines of a block, `...` standing for a value the reader supplies. */
function exported(code: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of code.split('\n').filter((l) => l.startsWith('export '))) {
    for (const m of line.replace(/\s+#.*$/, '').matchAll(/([A-Z_]+)=(\S+)/g)) {
      env[m[1]] = m[2] === '...' ? (SUPPLIED[m[1]] ?? SECRET) : m[2];
    }
  }
  return env;
}

/**
 * Resolves when `url` answers 200, polling while `child` runs. A guard, not a timing: a loaded
 * machine may take a minute to start the server (migrations, the compile cache's first fill).
 */
async function until200(url: string, child: ChildProcess, output: () => string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    assert.equal(child.exitCode, null, `exited ${child.exitCode}:\n${output()}`);
    const status = await fetch(url).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.fail(`${url} never answered 200:\n${output()}`);
}

describe("the README's and the guides' commands and settings are real", () => {
  it('the README keeps the two commands a new user runs', () => {
    assert.match(README, /^npm ci && npm start {6}#/m);
    assert.match(README, /^npm ci && npm test {7}#/m);
  });

  it('every npm command of their sh blocks is npm itself or a script of package.json', () => {
    const used = shell.flatMap((b) =>
      [...b.code.matchAll(/\bnpm (?:run )?([a-z][a-z-]*)/g)].map((m) => m[1]),
    );
    assert.ok(used.includes('start') && used.includes('bench'), used.join(' '));
    for (const name of used.filter((n) => n !== 'ci')) assert.ok(PACKAGE.scripts[name], `npm ${name}`);
  });

  it('the Command line section lists exactly the commands of `lectern --help`', async () => {
    const database = await createTestDatabase();
    try {
      const help = await runLectern(['--help'], cliEnv(database));
      // The command's words: the first column (up to two spaces), before its options.
      const words = (line: string) => {
        const column = line.split(/\s{2,}/)[0].split(' ');
        const options = column.findIndex((w) => !/^[a-z]+$/.test(w));
        return options === -1 ? column : column.slice(0, options);
      };
      const usage = help.stdout
        .split('\n')
        .filter((l) => /^ {2}[a-z]/.test(l))
        .map((l) => words(l.trim()).join(' '));
      assert.ok(commandLine, 'a Command line section with a code block');
      const listed = commandLine.code
        .split('\n')
        .filter((l) => l.startsWith('lectern '))
        .map((l) => words(l.slice('lectern '.length)).join(' '));
      assert.deepEqual(listed, usage);
    } finally {
      await database.drop();
    }
  });

  it('every setting the examples export is a row of the configuration table, and their values pass the check', () => {
    assert.ok(postgres, 'a Running on PostgreSQL section with an sh block');
    const env = exported(postgres.code);
    for (const name of Object.keys(env))
      assert.match(CONFIGURATION, new RegExp(`^\\| \`${name}\` \\|`, 'm'), name);
    const config = loadConfig(env);
    assert.equal(config.database.engine, 'postgres');
    assert.equal(config.baseUrl, env.BASE_URL);
    assert.equal(config.env, 'production');
  });
});

describe('operations guide: "Running on PostgreSQL" runs as written', {
  skip: ENGINE !== 'postgres' && 'PostgreSQL only',
}, () => {
  let database: TestDatabase;
  let db: Db;
  let child: ChildProcess | undefined;
  before(async () => {
    database = await createTestDatabase();
    db = openDatabase(database.options);
  });
  after(async () => {
    if (child && child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGTERM');
    await db.destroy();
    await database.drop();
  });

  it('migrate, schools create (password typed on stdin), serve; the owner signs in', async () => {
    assert.ok(postgres);
    const example = exported(postgres.code).DATABASE_URL;
    let script = postgres.code.replace(example, `'${database.env.DATABASE_URL}'`);
    for (const [name, value] of Object.entries(SUPPLIED))
      script = script.replace(`${name}=...`, `${name}=${value}`);
    assert.doesNotMatch(script, /=\.\.\./, 'every ... is supplied');
    const port = await freePort();
    // PORT is left to its default in the guide; a test picks a free one.
    child = spawn('bash', ['--noprofile', '--norc', '-c', script], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: String(port) },
      cwd: new URL('../..', import.meta.url),
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    // What the operator types at `read -rs OWNER_PASSWORD`.
    child.stdin?.end(`${OWNER_PASSWORD}\n`);
    let output = '';
    child.stdout?.on('data', (d) => {
      output += d;
    });
    child.stderr?.on('data', (d) => {
      output += d;
    });
    const base = `http://127.0.0.1:${port}`;
    await until200(`${base}/readyz`, child, () => output);
    assert.match(output, /^applied 0001_identity$/m);
    assert.match(output, /^\d+ migration\(s\) applied$/m);
    const created = JSON.parse(output.split('\n').find((l) => l.startsWith('{"school"'))!);
    assert.deepEqual(
      [created.school.name, created.school.subdomain, created.school.currency, created.school.locale],
      ['Riverside Academy', 'riverside', 'EUR', 'en-GB'],
    );
    assert.deepEqual(
      [created.owner.email, created.owner.name, created.owner.created],
      ['rita@riverside.example', 'Rita Owner', true],
    );
    assert.equal(output.includes(OWNER_PASSWORD), false, 'the password is never printed');
    assert.deepEqual(await db.selectFrom('courses').select('id').execute(), []);

    // Step 4: the owner signs in through /login and reaches the school's operator area.
    const cookies = new Map<string, string>();
    const send = async (path: string, init: RequestInit = {}) => {
      const headers = new Headers(init.headers);
      headers.set('cookie', [...cookies].map(([k, v]) => `${k}=${v}`).join('; '));
      const res = await fetch(`${base}${path}`, { ...init, headers, redirect: 'manual' });
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(';');
        cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
      }
      return res;
    };
    const form = await (await send('/login')).text();
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(form)?.[1];
    assert.ok(csrf, form);
    const login = await send('/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        csrf_token: csrf,
        email: 'rita@riverside.example',
        password: OWNER_PASSWORD,
      }).toString(),
    });
    assert.equal(login.status, 303, await login.text());
    let admin = await send('/admin');
    while (admin.status === 302 || admin.status === 303)
      admin = await send(new URL(admin.headers.get('location')!, base).pathname);
    assert.equal(admin.status, 200);
    assert.match(await admin.text(), /Riverside Academy/);

    // METRICS_TOKEN from step 1 guards /metrics.
    assert.equal((await fetch(`${base}/metrics`)).status, 401);
    assert.equal(
      (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS}` } })).status,
      200,
    );

    const exited = new Promise((resolve) => child?.once('exit', resolve));
    process.kill(-(child.pid ?? 0), 'SIGTERM');
    await exited;
  });
});

describe('operations guide: "Running on PostgreSQL": inviting a lecturer runs as written', () => {
  const invite = docBlocks(walkText).find((b) => b.lang === 'sh' && b.code.includes('/api/v1/members'));

  it('the curl step invites with an operator token and answers a pending invitation with its one-time link', async () => {
    assert.ok(invite, 'an sh block inviting a lecturer in the Running on PostgreSQL section');
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const t = await createTestApp({ BASE_URL: base });
    const server = await listen(t.app, '127.0.0.1', port);
    try {
      const school = await createSchool(t.runtime.db, { name: 'My School', subdomain: 'myschool' });
      const owner = await createUser(t.runtime.db, {
        email: 'me@example.com',
        name: 'Me',
        passwordHash: null,
      });
      await addRoles(t.runtime.db, school.id, owner.id, ['owner']);
      const { token } = await issueTestToken(t, {
        userId: owner.id,
        schoolId: school.id,
        scopes: ['members:write'],
        audience: 'operator',
      });
      const output = await new Promise<string>((resolve, reject) => {
        const child = spawn('bash', ['--noprofile', '--norc', '-e', '-c', invite.code], {
          env: { PATH: process.env.PATH ?? '', BASE_URL: base, TOKEN: token },
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let out = '';
        child.stdout?.on('data', (d) => {
          out += d;
        });
        child.once('error', reject);
        child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${out}`))));
      });
      const answer = JSON.parse(output);
      assert.equal(answer.email, 'lecturer@example.com');
      assert.deepEqual(answer.roles, ['lecturer']);
      assert.equal(answer.status, 'pending');
      assert.equal(answer.delivery, 'link');
      assert.match(answer.link, new RegExp(`^${base}/invitations/[A-Za-z0-9_-]{43}$`));
    } finally {
      await server.shutdown(1000);
      await t.close();
    }
  });
});
