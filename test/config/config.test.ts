import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

const SECRET = randomBytes(32).toString('base64url');
const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lectern-config-'));
  dirs.push(dir);
  return dir;
}

/** The ConfigError a bad environment raises: exactly one line, naming the variable first. */
function configError(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    assert.ok(err instanceof ConfigError, `expected ConfigError, got ${err}`);
    assert.ok(!err.message.includes('\n'), 'one line');
    return err.message;
  }
  assert.fail('expected a ConfigError');
}

describe('configuration from the environment', () => {
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('has documented defaults', () => {
    const c = loadConfig({ LECTERN_SECRET: SECRET });
    assert.equal(c.env, 'development');
    assert.equal(c.port, 3000);
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.baseUrl, 'http://localhost:3000');
    assert.deepEqual(c.database, {
      engine: 'sqlite',
      url: 'file:./data/lectern.sqlite',
      sqlitePath: resolve('data/lectern.sqlite'),
    });
    assert.equal(c.redisUrl, undefined);
    assert.equal(c.logLevel, 'info');
    assert.equal(c.seedDemo, true);
    assert.equal(c.bodyLimitBytes, 1_048_576);
    assert.equal(c.uploadLimitBytes, 26_214_400);
    assert.equal(c.filesDir, resolve('data/files'));
    assert.deepEqual(c.cimd, { allowedHosts: [], openRegistration: false });
    assert.equal(c.trustProxy, false);
    assert.equal(c.secureCookies, false);
    assert.deepEqual(Buffer.from(c.secret), Buffer.from(SECRET, 'base64url'));
  });

  it('reads good values, derives BASE_URL from PORT, and freezes the result', () => {
    const c = loadConfig({ LECTERN_SECRET: SECRET, PORT: '8080', HOST: '0.0.0.0', LOG_LEVEL: 'debug' });
    assert.equal(c.baseUrl, 'http://localhost:8080');
    assert.equal(c.host, '0.0.0.0');
    assert.equal(c.logLevel, 'debug');
    const p = loadConfig({
      NODE_ENV: 'production',
      LECTERN_SECRET: SECRET,
      BASE_URL: 'https://learn.example.com/',
      DATABASE_URL: 'postgres://lectern:pw@db.internal:5432/lectern',
      REDIS_URL: 'redis://cache:6379',
      CIMD_ALLOWED_HOSTS: 'Example.COM, tools.example.org',
      SEED_DEMO: 'false',
      TRUST_PROXY: 'yes',
    });
    assert.equal(p.baseUrl, 'https://learn.example.com');
    assert.equal(p.secureCookies, true);
    assert.deepEqual(p.database, {
      engine: 'postgres',
      url: 'postgres://lectern:pw@db.internal:5432/lectern',
    });
    assert.equal(p.redisUrl, 'redis://cache:6379');
    assert.deepEqual(p.cimd.allowedHosts, ['example.com', 'tools.example.org']);
    assert.equal(p.seedDemo, false);
    assert.equal(p.trustProxy, true);
    assert.ok(Object.isFrozen(p));
    assert.ok(Object.isFrozen(p.database));
    assert.throws(() => {
      (p as { port: number }).port = 1;
    }, TypeError);
  });

  it('turns demo seeding off by default in production', () => {
    assert.equal(loadConfig({ NODE_ENV: 'production', LECTERN_SECRET: SECRET }).seedDemo, false);
  });

  it('treats empty variables as unset', () => {
    assert.equal(loadConfig({ LECTERN_SECRET: SECRET, PORT: '' }).port, 3000);
  });

  it('stops on each bad value with one line naming the variable', () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ PORT: 'abc' }, /^PORT: .*\(got "abc"\)$/],
      [{ PORT: '70000' }, /^PORT: /],
      [{ BASE_URL: 'ftp://x' }, /^BASE_URL: must use http or https$/],
      [{ BASE_URL: 'not a url' }, /^BASE_URL: "not a url" is not an absolute URL$/],
      [{ BASE_URL: 'https://u:p@example.com' }, /^BASE_URL: must not carry credentials$/],
      [{ BASE_URL: 'https://example.com/?x=1' }, /^BASE_URL: must not have a query or fragment$/],
      [
        { DATABASE_URL: 'mysql://db/lectern' },
        /^DATABASE_URL: must be postgres:\/\/…, file:<path> or a SQLite file path$/,
      ],
      [
        { LECTERN_SECRET: 'too-short' },
        /^LECTERN_SECRET: must be 32 random bytes in base64url \(43 characters\)/,
      ],
      [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL: /],
      [{ NODE_ENV: 'staging' }, /^NODE_ENV: /],
      [{ REDIS_URL: 'http://cache' }, /^REDIS_URL: must start with redis:\/\/ or rediss:\/\//],
      [{ SEED_DEMO: 'maybe' }, /^SEED_DEMO: /],
      [{ BODY_LIMIT_BYTES: '10' }, /^BODY_LIMIT_BYTES: /],
    ];
    for (const [env, pattern] of cases) {
      assert.match(configError({ LECTERN_SECRET: SECRET, ...env }), pattern, JSON.stringify(env));
    }
  });

  it('METRICS_TOKEN: a Bearer token of at least 32 characters, never echoed when refused', () => {
    const token = randomBytes(32).toString('base64');
    assert.equal(loadConfig({ LECTERN_SECRET: SECRET, METRICS_TOKEN: token }).metricsToken, token);
    assert.equal(loadConfig({ LECTERN_SECRET: SECRET }).metricsToken, undefined);
    for (const bad of ['short-token', `${'a'.repeat(40)} b`, `${'a'.repeat(40)}"`, `é${'a'.repeat(40)}`]) {
      assert.equal(
        configError({ LECTERN_SECRET: SECRET, METRICS_TOKEN: bad }),
        'METRICS_TOKEN: must be at least 32 characters of A-Z a-z 0-9 - . _ ~ + / (an RFC 6750 Bearer token)',
      );
    }
  });

  it('refuses demo data in production', () => {
    assert.equal(
      configError({ NODE_ENV: 'production', LECTERN_SECRET: SECRET, SEED_DEMO: 'true' }),
      'SEED_DEMO: demo data is never seeded in production',
    );
  });

  it('requires the secret in production and with PostgreSQL', () => {
    const dir = tempDir();
    assert.equal(
      configError({ NODE_ENV: 'production', DATABASE_URL: `file:${dir}/db.sqlite` }),
      'LECTERN_SECRET: is required in production',
    );
    assert.equal(
      configError({ DATABASE_URL: 'postgres://u@127.0.0.1:5432/x' }),
      'LECTERN_SECRET: is required when DATABASE_URL is PostgreSQL',
    );
  });

  it('generates the embedded default secret once, beside the SQLite file, and reuses it', () => {
    const dir = tempDir();
    const env = { DATABASE_URL: `file:${dir}/lectern.sqlite` };
    const first = loadConfig(env);
    const file = join(dir, 'secret.key');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(readFileSync(file, 'utf8').trim(), Buffer.from(first.secret).toString('base64url'));
    const second = loadConfig(env);
    assert.deepEqual(Buffer.from(second.secret), Buffer.from(first.secret));
    assert.equal(first.secret.length, 32);
    writeFileSync(file, 'garbage\n');
    assert.match(configError(env), /^LECTERN_SECRET: the stored secret in .*secret\.key is corrupt$/);
  });
});
