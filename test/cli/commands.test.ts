import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyPassword } from '../../src/crypto/passwords.ts';
import { findMembership } from '../../src/domain/school/memberships.ts';
import { findSchoolBySubdomain } from '../../src/domain/school/schools.ts';
import { findUserByEmail } from '../../src/domain/school/users.ts';
import { type Db, openDatabase } from '../../src/store/database.ts';
import { migrations } from '../../src/store/migrations/index.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { cliEnv, runLectern } from './run.ts';

describe('lectern command line', () => {
  let database: TestDatabase;
  let env: Record<string, string>;
  let db: Db;
  before(async () => {
    database = await createTestDatabase();
    env = cliEnv(database);
    db = openDatabase(database.options);
  });
  after(async () => {
    await db.destroy();
    await database.drop();
  });

  it('migrate names each migration it applies, then says nothing is pending', async () => {
    const r = await runLectern(['migrate'], env);
    assert.equal(r.code, 0, r.stderr);
    const names = Object.keys(migrations);
    assert.equal(
      r.stdout,
      `${names.map((n) => `applied ${n}\n`).join('')}${names.length} migration(s) applied\n`,
    );
    const again = await runLectern(['migrate'], env);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, 'no pending migrations: the database is up to date\n');
    // Read through this test's own connection: introspection would list other schemas' tables too.
    assert.deepEqual(await db.selectFrom('courses').select('id').execute(), []);
  });

  it('seed adds the demo data once', async () => {
    const first = await runLectern(['seed'], env);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, 'demo data created\n');
    const second = await runLectern(['seed'], env);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.stdout, 'demo data already present\n');
    assert.ok(await findSchoolBySubdomain(db, 'demo'));
  });

  it('users create makes a user with the role, the password read from stdin', async () => {
    const r = await runLectern(
      [
        'users',
        'create',
        '--email',
        'New.Admin@Example.com',
        '--name',
        'Nia Admin',
        '--school',
        'demo',
        '--role',
        'admin',
      ],
      env,
      'a-long-password\n',
    );
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { id: string; email: string };
    assert.equal(out.email, 'new.admin@example.com');
    const user = (await findUserByEmail(db, 'new.admin@example.com'))!;
    assert.equal(user.id, out.id);
    assert.equal(user.name, 'Nia Admin');
    assert.equal(await verifyPassword(user.password_hash, 'a-long-password'), true);
    const school = (await findSchoolBySubdomain(db, 'demo'))!;
    assert.deepEqual((await findMembership(db, school.id, user.id))?.roles, ['admin']);
  });

  it('a taken email exits 65', async () => {
    const r = await runLectern(
      ['users', 'create', '--email', 'owner@example.com', '--name', 'X'],
      env,
      'password123',
    );
    assert.equal(r.code, 65);
    assert.equal(r.stderr, 'lectern: A user with this email already exists.\n');
  });

  it('bad usage exits 64 with a message and the usage', async () => {
    const cases: Array<[string[], string, string]> = [
      [
        [
          'users',
          'create',
          '--email',
          'x@example.com',
          '--name',
          'X',
          '--school',
          'demo',
          '--role',
          'wizard',
        ],
        'password123',
        '--role must be one of owner, admin, lecturer, student',
      ],
      [
        ['users', 'create', '--email', 'x@example.com'],
        'password123',
        'users create needs --email and --name',
      ],
      [
        ['users', 'create', '--email', 'x@example.com', '--name', 'X', '--role', 'admin'],
        'password123',
        '--role needs --school',
      ],
      [
        ['users', 'create', '--email', 'x@example.com', '--name', 'X'],
        'short',
        'the password (standard input) must be at least 8 characters',
      ],
      [
        ['users', 'create', '--email', 'x@example.com', '--name', 'X', '--school', 'nowhere'],
        'password123',
        'no school with subdomain nowhere',
      ],
      [['frobnicate'], '', 'unknown command: frobnicate'],
    ];
    // Each spawn loads the whole app, so the cases run side by side.
    const results = await Promise.all(cases.map(([args, stdin]) => runLectern(args, env, stdin)));
    for (const [i, [args, , message]] of cases.entries()) {
      const r = results[i];
      assert.equal(r.code, 64, `${args.join(' ')}: ${r.stderr}`);
      assert.ok(r.stderr.startsWith(`lectern: ${message}\n`), r.stderr);
      assert.match(r.stderr, /usage: lectern \[command\]/);
    }
    assert.equal(await findUserByEmail(db, 'x@example.com'), undefined);
  });

  it('keys rotate prints only the kid and logs signing_key.rotated on stderr', async () => {
    const r = await runLectern(['keys', 'rotate'], env);
    assert.equal(r.code, 0, r.stderr);
    const kid = r.stdout.trim();
    assert.match(r.stdout, /^[A-Za-z0-9_-]{43}\n$/);
    const events = r.stderr
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.event === 'signing_key.rotated');
    assert.deepEqual(
      events.map((e) => [e.level, e.kid]),
      [[30, kid]],
    );
  });

  it('a bad configuration exits 78 with one line naming the variable', async () => {
    const r = await runLectern(['migrate'], { ...env, PORT: 'abc' });
    assert.equal(r.code, 78);
    assert.equal(
      r.stderr,
      'lectern: configuration error: PORT: Invalid input: expected number, received NaN (got "abc")\n',
    );
  });

  it('--help prints the usage', async () => {
    const r = await runLectern(['--help'], env);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^usage: lectern \[command\]/);
  });
});
