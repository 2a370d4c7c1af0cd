import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { calculateJwkThumbprint, createLocalJWKSet, jwtVerify, SignJWT } from 'jose';
import { open } from '../../src/crypto/secret-box.ts';
import {
  ACTIVE_TTL_MS,
  createSigningKeys,
  getSigningKey,
  publicJwks,
  RETIRED_KEY_GRACE_SECONDS,
  rotateSigningKey,
  type SigningKey,
} from '../../src/crypto/signing-keys.ts';
import type { AppContext } from '../../src/http/context.ts';
import { openDatabase } from '../../src/store/database.ts';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../support/app.ts';

const sign = (key: SigningKey) =>
  new SignJWT({ sub: 'usr_1' })
    .setProtectedHeader({ alg: 'ES256', kid: key.kid })
    .setIssuer(TEST_BASE_URL)
    .setAudience('client')
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(key.privateKey);

const verifyWith = async (jwks: { keys: object[] }, jwt: string) =>
  jwtVerify(jwt, createLocalJWKSet(jwks as never), {
    issuer: TEST_BASE_URL,
    audience: 'client',
    algorithms: ['ES256'],
  });

describe('signing keys (product.md §5)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('creates one ES256 key on first use, kid = RFC 7638 thumbprint, and reuses it', async () => {
    const a = await getSigningKey(t.runtime);
    const b = await getSigningKey(t.runtime);
    assert.equal(a.kid, b.kid);
    assert.equal(a.alg, 'ES256');
    assert.deepEqual(a.publicJwk, {
      ...a.publicJwk,
      kty: 'EC',
      crv: 'P-256',
      kid: a.kid,
      use: 'sig',
      alg: 'ES256',
    });
    assert.equal(a.publicJwk.d, undefined);
    assert.equal(await calculateJwkThumbprint(a.publicJwk, 'sha256'), a.kid);
    const rows = await t.runtime.db.selectFrom('signing_keys').selectAll().execute();
    assert.equal(rows.length, 1);
  });

  it('stores the private key sealed: unreadable without config.secret', async () => {
    const key = await getSigningKey(t.runtime);
    const row = await t.runtime.db
      .selectFrom('signing_keys')
      .selectAll()
      .where('kid', '=', key.kid)
      .executeTakeFirstOrThrow();
    const privateJwk = JSON.parse(open(t.config.secret, row.private_jwk_encrypted, key.kid));
    assert.match(privateJwk.d, /^[A-Za-z0-9_-]{43}$/);
    assert.ok(!row.private_jwk_encrypted.includes(privateJwk.d));
    assert.ok(!row.public_jwk.includes(privateJwk.d));
    assert.throws(() => open(randomBytes(32), row.private_jwk_encrypted, key.kid));
    // The kid is bound as associated data: a sealed key cannot be moved to another row.
    assert.throws(() => open(t.config.secret, row.private_jwk_encrypted, 'other-kid'));
    // Another deployment secret cannot use the stored key at all.
    const db = openDatabase(t.database.options);
    try {
      const config = { ...t.config, secret: randomBytes(32) };
      const signingKeys = createSigningKeys({ db, secret: config.secret });
      const stranger: AppContext = { ...t.runtime, db, config, signingKeys };
      await assert.rejects(getSigningKey(stranger));
    } finally {
      await db.destroy();
    }
  });

  it('rotation keeps the old key in the JWKS until its tokens expire, then drops it', async () => {
    const old = await getSigningKey(t.runtime);
    const oldToken = await sign(old);
    const now = Date.now();
    const fresh = await rotateSigningKey(t.runtime, now);
    assert.notEqual(fresh.kid, old.kid);
    assert.equal((await getSigningKey(t.runtime)).kid, fresh.kid);

    // Over HTTP, as a client would fetch it.
    const jwks = await (await t.request('/jwks.json')).json();
    assert.deepEqual(
      jwks.keys.map((k: { kid: string }) => k.kid),
      [fresh.kid, old.kid],
    );
    assert.equal((await verifyWith(jwks, oldToken)).payload.sub, 'usr_1');
    assert.equal((await verifyWith(jwks, await sign(fresh))).payload.sub, 'usr_1');

    // Still published just before the grace period ends (it covers the 10-minute id_token).
    assert.ok(RETIRED_KEY_GRACE_SECONDS > 600 + ACTIVE_TTL_MS / 1000);
    const late = await publicJwks(t.runtime, now + (RETIRED_KEY_GRACE_SECONDS - 1) * 1000);
    assert.equal(late.keys.length, 2);
    const expired = await publicJwks(t.runtime, now + (RETIRED_KEY_GRACE_SECONDS + 1) * 1000);
    assert.deepEqual(
      expired.keys.map((k) => k.kid),
      [fresh.kid],
    );
    await assert.rejects(verifyWith(expired, oldToken), { code: 'ERR_JWKS_NO_MATCHING_KEY' });
  });

  it('another instance sees a rotation once its cached view is older than the TTL', async () => {
    const db = openDatabase(t.database.options);
    try {
      const other: AppContext = {
        ...t.runtime,
        db,
        signingKeys: createSigningKeys({ db, secret: t.config.secret }),
      };
      const now = Date.now();
      const before = await getSigningKey(other, now);
      const rotated = await rotateSigningKey(t.runtime);
      assert.equal((await getSigningKey(other, now + 1000)).kid, before.kid);
      assert.equal((await getSigningKey(other, now + ACTIVE_TTL_MS + 1)).kid, rotated.kid);
      // Its JWKS is read fresh, so the new key is published there at once.
      const kids = (await publicJwks(other)).keys.map((k) => k.kid);
      assert.ok(kids.includes(rotated.kid) && kids.includes(before.kid));
    } finally {
      await db.destroy();
    }
  });

  it('`lectern keys rotate` prints the new kid and retires the previous key', async () => {
    const previous = await getSigningKey(t.runtime);
    const result = spawnSync(process.execPath, ['src/main.ts', 'keys', 'rotate'], {
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        BASE_URL: TEST_BASE_URL,
        LECTERN_SECRET: Buffer.from(t.config.secret).toString('base64url'),
        ...t.database.env,
      },
      encoding: 'utf8',
    });
    assert.equal(result.status, 0, result.stderr);
    const kid = result.stdout.trim();
    assert.match(kid, /^[A-Za-z0-9_-]{43}$/);
    const rows = await t.runtime.db.selectFrom('signing_keys').selectAll().execute();
    const active = rows.filter((r) => r.retired_at === null);
    assert.deepEqual(
      active.map((r) => r.kid),
      [kid],
    );
    const old = rows.find((r) => r.kid === previous.kid);
    assert.ok(old?.retired_at && old.expires_at && old.expires_at > new Date().toISOString());
    const jwks = await (await t.request('/jwks.json')).json();
    assert.ok(jwks.keys.some((k: { kid: string }) => k.kid === kid));
    assert.ok(jwks.keys.some((k: { kid: string }) => k.kid === previous.kid));
  });
});
