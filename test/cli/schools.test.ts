/**
 * `lectern schools create`: a school and its first owner in one step,
 * and the demo seed refused in production.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { hashPassword, verifyPassword } from '../../src/crypto/passwords.ts';
import { sha256 } from '../../src/crypto/tokens.ts';
import { findMembership } from '../../src/domain/school/memberships.ts';
import { findSchoolBySubdomain } from '../../src/domain/school/schools.ts';
import { createUser, findUserByEmail } from '../../src/domain/school/users.ts';
import { openRuntime } from '../../src/runtime.ts';
import { type Db, openDatabase } from '../../src/store/database.ts';
import type { TestApp } from '../support/app.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { Browser, formFields } from '../support/oauth-flow.ts';
import { cliEnv, runLectern } from './run.ts';

const CREATE = [
  'schools',
  'create',
  '--name',
  'Riverside Academy',
  '--subdomain',
  'riverside',
  '--currency',
  'EUR',
  '--locale',
  'de-de',
  '--timezone',
  'Europe/Berlin',
  '--owner-email',
  'Rita.Owner@Example.com',
  '--owner-name',
  'Rita Owner',
];

describe('lectern schools create', () => {
  let database: TestDatabase;
  let env: Record<string, string>;
  let db: Db;
  const counts = async () => ({
    schools: (await db.selectFrom('schools').select('id').execute()).length,
    users: (await db.selectFrom('users').select('id').execute()).length,
    memberships: (await db.selectFrom('memberships').select('id').execute()).length,
  });
  before(async () => {
    database = await createTestDatabase();
    env = cliEnv(database);
    db = openDatabase(database.options);
    const migrated = await runLectern(['migrate'], env);
    assert.equal(migrated.code, 0, migrated.stderr);
  });
  after(async () => {
    await db.destroy();
    await database.drop();
  });

  it('creates the school and a new owner whose password is read from stdin, and prints one JSON line', async () => {
    const r = await runLectern(CREATE, env, 'river-password-1\n');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.split('\n').length, 2, r.stdout);
    const out = JSON.parse(r.stdout);
    const school = (await findSchoolBySubdomain(db, 'riverside'))!;
    const owner = (await findUserByEmail(db, 'rita.owner@example.com'))!;
    assert.deepEqual(out, {
      school: {
        id: school.id,
        name: 'Riverside Academy',
        subdomain: 'riverside',
        currency: 'EUR',
        locale: 'de-DE',
        timezone: 'Europe/Berlin',
      },
      owner: { id: owner.id, email: 'rita.owner@example.com', name: 'Rita Owner', created: true },
    });
    assert.equal(await verifyPassword(owner.password_hash, 'river-password-1'), true);
    assert.deepEqual((await findMembership(db, school.id, owner.id))?.roles, ['owner']);
    // The security event goes to the log (stderr for a one-off command), never the password.
    const events = r.stderr
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const created = events.find((e) => e.event === 'school.created');
    assert.deepEqual(
      { schoolId: created?.schoolId, userId: created?.userId, ownerCreated: created?.ownerCreated },
      { schoolId: school.id, userId: owner.id, ownerCreated: true },
    );
    assert.doesNotMatch(r.stderr, /river-password-1/);
  });

  it('a taken subdomain is one line, exit 73, and nothing is written', async () => {
    const before = await counts();
    const r = await runLectern(
      [
        ...CREATE.slice(0, 3),
        'Another',
        '--subdomain',
        'RIVERSIDE',
        '--owner-email',
        'new.one@example.com',
        '--owner-name',
        'New One',
      ],
      env,
      'another-password\n',
    );
    assert.equal(r.code, 73);
    assert.equal(r.stderr, 'lectern: The subdomain "riverside" is taken. Nothing was created.\n');
    assert.equal(r.stdout, '');
    assert.deepEqual(await counts(), before);
    assert.equal(await findUserByEmail(db, 'new.one@example.com'), undefined);
  });

  it('an existing account becomes owner with its password unchanged, and nothing is read from stdin', async () => {
    const existing = await createUser(db, {
      email: 'lena@example.com',
      name: 'Lena Existing',
      passwordHash: await hashPassword('lenas-own-password'),
    });
    const r = await runLectern(
      [
        'schools',
        'create',
        '--name',
        'Hillside',
        '--subdomain',
        'hillside',
        '--owner-email',
        'LENA@example.com',
      ],
      env,
      'ignored-password\n',
    );
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(out.owner, {
      id: existing.id,
      email: 'lena@example.com',
      name: 'Lena Existing',
      created: false,
    });
    assert.deepEqual(
      { currency: out.school.currency, locale: out.school.locale, timezone: out.school.timezone },
      { currency: 'USD', locale: 'en', timezone: 'UTC' },
    );
    const user = (await findUserByEmail(db, 'lena@example.com'))!;
    assert.equal(await verifyPassword(user.password_hash, 'lenas-own-password'), true);
    assert.deepEqual((await findMembership(db, out.school.id, existing.id))?.roles, ['owner']);
  });

  it('bad values are refused by the domain rules in one line, exit 65, nothing written', async () => {
    const before = await counts();
    const r = await runLectern(
      [
        'schools',
        'create',
        '--name',
        '   ',
        '--subdomain',
        'Bad_Sub',
        '--currency',
        'euro',
        '--locale',
        '!!',
        '--timezone',
        'Mars/Olympus',
        '--owner-email',
        'not-an-email',
        '--owner-name',
        'X',
      ],
      env,
      'a-fine-password\n',
    );
    assert.equal(r.code, 65);
    assert.equal(
      r.stderr,
      'lectern: invalid input: name must be a non-empty string of at most 120 characters; ' +
        'subdomain must be a DNS label: a-z, 0-9 and inner hyphens, ≤ 63; ' +
        'locale must be a BCP 47 language tag, e.g. en or pt-BR; ' +
        'timezone must be an IANA time zone, e.g. Europe/Berlin; ' +
        'currency must be an ISO 4217 currency code, e.g. USD; ownerEmail must be an email address\n',
    );
    assert.deepEqual(await counts(), before);
  });

  it('usage mistakes exit 64 with their line first, and write nothing', async () => {
    const before = await counts();
    const cases: Array<[string[], string, string]> = [
      [
        ['schools', 'create', '--name', 'X'],
        '',
        'schools create needs --name, --subdomain and --owner-email',
      ],
      [
        ['schools', 'create', '--name', 'X', '--subdomain', 'xs', '--owner-email', 'nobody@example.com'],
        'a-fine-password',
        'no account has nobody@example.com yet: --owner-name is needed to create it',
      ],
      [
        [
          'schools',
          'create',
          '--name',
          'X',
          '--subdomain',
          'xs',
          '--owner-email',
          'n@example.com',
          '--owner-name',
          'N',
        ],
        'short',
        'the password (standard input) must be at least 8 characters',
      ],
      [['schools', 'create', '--name', 'X', '--colour', 'red'], '', "Unknown option '--colour'"],
      [['users', 'create', '--email', 'x@example.com', '--schol', 'demo'], '', "Unknown option '--schol'"],
    ];
    const results = await Promise.all(cases.map(([args, stdin]) => runLectern(args, env, stdin)));
    for (const [i, [args, , message]] of cases.entries()) {
      const r = results[i];
      assert.equal(r.code, 64, `${args.join(' ')}: ${r.stderr}`);
      assert.ok(r.stderr.startsWith(`lectern: ${message}\n`), r.stderr);
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    }
    assert.deepEqual(await counts(), before);
  });

  it('--link: the school and an owner invitation whose one-time link (7 days) is printed, never logged; the owner joins through it', async () => {
    const base = 'http://lectern.test';
    const linkEnv = { ...env, BASE_URL: base };
    const args = ['schools', 'create', '--name', 'Lakeside', '--subdomain', 'lakeside'];
    const r = await runLectern([...args, '--owner-email', 'Lee@Example.com', '--link'], linkEnv);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    const school = (await findSchoolBySubdomain(db, 'lakeside'))!;
    const link: string = out.link;
    const token = link.slice(`${base}/invitations/`.length);
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(link, `${base}/invitations/${token}`);
    assert.deepEqual(out, {
      school: {
        id: school.id,
        name: 'Lakeside',
        subdomain: 'lakeside',
        currency: 'USD',
        locale: 'en',
        timezone: 'UTC',
      },
      owner: { email: 'lee@example.com', invitation_id: out.owner.invitation_id },
      link,
      link_expires_at: out.link_expires_at,
    });
    // Only the hash is stored; the link is on standard output alone (the log is standard error).
    const row = await db
      .selectFrom('invitations')
      .selectAll()
      .where('school_id', '=', school.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.token_hash, sha256(token));
    assert.equal(row.roles, '["owner"]');
    assert.equal(Date.parse(row.expires_at) - Date.parse(row.created_at), 7 * 24 * 3600 * 1000);
    assert.equal(out.link_expires_at, row.expires_at);
    assert.ok(!r.stderr.includes(token), 'the link is never logged');
    assert.match(r.stderr, /"event":"school.created"/);
    assert.equal(
      await findUserByEmail(db, 'lee@example.com'),
      undefined,
      'no account before the link is used',
    );

    // --link and --owner-name together: the owner chooses their own name.
    const both = await runLectern(
      [...args, '--owner-email', 'x@example.com', '--owner-name', 'X', '--link'],
      linkEnv,
    );
    assert.equal(both.code, 64);
    assert.ok(both.stderr.startsWith('lectern: --link lets the owner choose their own name'), both.stderr);

    // The owner opens the link in a browser of the same deployment and joins as owner.
    const runtime = await openRuntime(loadConfig(linkEnv), {
      db: openDatabase(database.options),
      processMetrics: false,
    });
    try {
      const app = createApp(runtime);
      const visitor = new Browser({
        request: (path, init) => app.request(new URL(path, base).toString(), init),
      } as TestApp);
      const path = new URL(link).pathname;
      const page = await visitor.request(path);
      assert.equal(page.status, 200);
      const joined = await visitor.postForm(path, {
        ...Object.fromEntries(formFields(await page.text(), path)),
        name: 'Lee Owner',
        password: 'lakeside-password',
      });
      assert.equal(joined.status, 303);
      const owner = (await findUserByEmail(db, 'lee@example.com'))!;
      assert.equal(await verifyPassword(owner.password_hash, 'lakeside-password'), true);
      assert.deepEqual((await findMembership(db, school.id, owner.id))?.roles, ['owner']);
      const admin = await visitor.request(`/admin/${school.id}`);
      assert.equal(admin.status, 200);
      assert.match(await admin.text(), /Lakeside/);
      // Single use: the same link again is a 410 page.
      assert.equal((await new Browser(visitor.t).request(path)).status, 410);
    } finally {
      await runtime.close();
    }
  });

  it('seed is refused under NODE_ENV=production: exit 77, one line, nothing written', async () => {
    const before = await counts();
    const r = await runLectern(['seed'], { ...env, NODE_ENV: 'production' });
    assert.equal(r.code, 77);
    assert.equal(
      r.stderr,
      'lectern: seed refused: NODE_ENV=production, and the demo accounts have a published password; nothing was written\n',
    );
    assert.equal(await findSchoolBySubdomain(db, 'demo'), undefined);
    assert.deepEqual(await counts(), before);
  });
});
