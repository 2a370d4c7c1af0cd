/**
 * Operational failures an operator meets first: each is one line on
 * stderr with its own exit code, and no secret of the environment is ever echoed.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, ENGINE, type TestDatabase } from '../support/database.ts';
import { cliEnv, runLectern } from './run.ts';

const NO_STACK = /\n\s+at /;

describe('lectern fails in one line with a distinct exit code', () => {
  let database: TestDatabase;
  let env: Record<string, string>;
  before(async () => {
    database = await createTestDatabase();
    env = cliEnv(database);
  });
  after(() => database.drop());

  it('an unreachable PostgreSQL server: exit 69, the host named, the password not', async () => {
    const r = await runLectern(['migrate'], {
      ...env,
      DATABASE_URL: 'postgres://lectern:Sup3r-s3cret@127.0.0.1:1/lectern',
    });
    assert.equal(r.code, 69);
    assert.equal(
      r.stderr,
      'lectern: cannot reach PostgreSQL at 127.0.0.1:1 (ECONNREFUSED): check DATABASE_URL and that the server is running\n',
    );
    assert.equal(r.stdout, '');
  });

  it('a PostgreSQL database that does not exist: exit 66', {
    skip: ENGINE !== 'postgres' && 'PostgreSQL only',
  }, async () => {
    const url = new URL(process.env.TEST_DATABASE_URL!);
    const name = `lectern_missing_${randomBytes(4).toString('hex')}`;
    url.pathname = `/${name}`;
    url.password = 'an-unused-password';
    const r = await runLectern(['migrate'], { ...env, DATABASE_URL: url.href });
    assert.equal(r.code, 66);
    assert.equal(
      r.stderr,
      `lectern: the database "${name}" does not exist on PostgreSQL at ${url.hostname}:${url.port || '5432'}: ` +
        `create it (createdb ${name}) or correct DATABASE_URL\n`,
    );
  });

  it('a port in use: exit 71 naming the address', async () => {
    const blocker = createServer();
    blocker.listen(0, '127.0.0.1');
    await once(blocker, 'listening');
    const { port } = blocker.address() as { port: number };
    try {
      const r = await runLectern(['serve'], {
        ...env,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
      });
      assert.equal(r.code, 71);
      assert.equal(
        r.stderr,
        `lectern: 127.0.0.1:${port} is already in use: stop what listens there or set PORT/HOST\n`,
      );
      assert.doesNotMatch(r.stderr, NO_STACK);
    } finally {
      blocker.close();
    }
  });

  it('a malformed secret or secret-bearing URL is named, never echoed: exit 78', async () => {
    const cases: Array<[Record<string, string>, string, string]> = [
      [
        { LECTERN_SECRET: `${randomBytes(32).toString('base64url')}x` },
        'LECTERN_SECRET: must be 32 random bytes in base64url (43 characters)',
        'LECTERN_SECRET',
      ],
      [
        { REDIS_URL: 'http://default:Redis-pa55word@cache:6379' },
        'REDIS_URL: must start with redis:// or rediss://',
        'REDIS_URL',
      ],
      [
        { SMTP_URL: 'http://mailer:Smtp-pa55word@mail.example.com' },
        'SMTP_URL: must be smtp://[user:password@]host[:port] or smtps://…',
        'SMTP_URL',
      ],
      [
        { METRICS_TOKEN: 'too-short-a-token' },
        'METRICS_TOKEN: must be at least 32 characters',
        'METRICS_TOKEN',
      ],
      [
        { DATABASE_URL: 'postgres://u:Db-pa55word@[::1' },
        'DATABASE_URL: is not a valid postgres:// URL',
        'DATABASE_URL',
      ],
    ];
    const results = await Promise.all(cases.map(([extra]) => runLectern(['migrate'], { ...env, ...extra })));
    for (const [i, [extra, message, variable]] of cases.entries()) {
      const r = results[i];
      assert.equal(r.code, 78, r.stderr);
      assert.ok(r.stderr.startsWith(`lectern: configuration error: ${message}`), r.stderr);
      assert.equal(r.stderr.split('\n').length, 2, 'one line');
      assert.equal(r.stderr.includes(extra[variable]), false, `${variable} echoed: ${r.stderr}`);
      assert.doesNotMatch(r.stderr, /pa55word|too-short-a-token/);
    }
  });
});
