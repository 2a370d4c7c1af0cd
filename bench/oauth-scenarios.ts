import { createHash, randomBytes } from 'node:crypto';
import type autocannon from 'autocannon';
import { loadConfig } from '../src/config.ts';
import { newId } from '../src/crypto/ids.ts';
import { randomToken, sha256 } from '../src/crypto/tokens.ts';
import { DEMO_MEMBER_APP_ID } from '../src/domain/demo/demo-seed.ts';
import { findSchoolBySubdomain } from '../src/domain/school/schools.ts';
import { findUserByEmail } from '../src/domain/school/users.ts';
import { createGrant } from '../src/oauth/grants/grants.ts';
import { issueTokens } from '../src/oauth/grants/tokens.ts';
import { type Db, inTransaction, openDatabase, type Tx } from '../src/store/database.ts';
import { isoIn, isoNow } from '../src/store/time.ts';
import type { Figures, Scenario } from './measure.ts';
import { CONNECTIONS, DURATION_SECONDS, measure, warmThenMeasure } from './measure.ts';
import { type BenchServer, startLectern } from './servers.ts';

const SCOPES = 'openid profile email account:read';
export const REDIRECT_URI = 'http://127.0.0.1/callback';
const CHUNK = 400;
// Enough single-use codes for the warm-up and the run at a rate well above the goal.
const CODE_POOL = (DURATION_SECONDS + 3) * 3000;

export interface OAuthStore {
  accessToken: string;
  refreshTokens: string[];
  codes: string[];
  verifier: string;
  resource: string;
}

/**
 * Fills the store as authorizations would have (bench only; the flow itself is tested end to
 * end): one access token and one refresh token per connection, issued through the real grant and
 * token functions, and a pool of codes whose expiry is pushed past the run (codes normally live
 * 60 s), written in bulk with their grants because the pool holds tens of thousands.
 */
export async function prepareOAuthStore(
  env: Record<string, string>,
  codes: number,
  refreshTokens: number,
): Promise<OAuthStore> {
  const config = loadConfig(env);
  const db: Db = openDatabase(config.database);
  try {
    const school = await findSchoolBySubdomain(db, 'demo');
    const user = await findUserByEmail(db, 'student@example.com');
    if (!school || !user) throw new Error('demo data missing');
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const now = isoNow();
    const grant = () => ({
      id: newId('grt'),
      client_id: DEMO_MEMBER_APP_ID,
      user_id: user.id,
      school_id: school.id,
      audience: 'member' as const,
      scopes: SCOPES,
      resource: config.baseUrl,
      auth_time: now,
      created_at: now,
      last_used_at: null,
      revoked_at: null,
    });
    const out: OAuthStore = {
      accessToken: '',
      refreshTokens: [],
      codes: [],
      verifier,
      resource: config.baseUrl,
    };
    const scopes = SCOPES.split(' ');
    const issue = async (tx: Tx) => {
      const g = await createGrant(tx, {
        clientId: DEMO_MEMBER_APP_ID,
        userId: user.id,
        schoolId: school.id,
        audience: 'member',
        scopes,
        resource: config.baseUrl,
        authTime: now,
      });
      return issueTokens(tx, g, scopes);
    };
    await inTransaction(db, async (tx) => {
      out.accessToken = (await issue(tx)).accessToken;
      for (let i = 0; i < refreshTokens; i++) out.refreshTokens.push((await issue(tx)).refreshToken);
      for (let start = 0; start < codes; start += CHUNK) {
        const grants = Array.from({ length: Math.min(CHUNK, codes - start) }, grant);
        await tx.insertInto('oauth_grants').values(grants).execute();
        const rows = grants.map((g) => {
          const code = randomToken();
          out.codes.push(code);
          return {
            code_hash: sha256(code),
            grant_id: g.id,
            client_id: DEMO_MEMBER_APP_ID,
            redirect_uri: REDIRECT_URI,
            code_challenge: challenge,
            scopes: SCOPES,
            resource: config.baseUrl,
            nonce: 'bench-nonce',
            auth_time: now,
            expires_at: isoIn(3600),
            used_at: null,
            created_at: now,
          };
        });
        await tx.insertInto('oauth_codes').values(rows).execute();
      }
    });
    return out;
  } finally {
    await db.destroy();
  }
}

/** A fresh server whose store was prepared with `codes` codes and `refreshTokens` refresh tokens. */
async function startPrepared(
  codes: number,
  refreshTokens: number,
): Promise<{ server: BenchServer; prepared: OAuthStore }> {
  let prepared: OAuthStore | undefined;
  const server = await startLectern({
    prepare: async (env) => {
      prepared = await prepareOAuthStore(env, codes, refreshTokens);
    },
  });
  if (!prepared) throw new Error('bench store was not prepared');
  return { server, prepared };
}

export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** Checks one request answers 200 before measuring, so a broken setup never shows as a figure. */
export async function probe(
  url: string,
  init: RequestInit,
  expect: (body: Record<string, unknown>) => boolean,
) {
  const res = await fetch(url, init);
  const body = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200 || !expect(body))
    throw new Error(`probe answered ${res.status}: ${JSON.stringify(body)}`);
}

/**
 * Refresh rotation under load at `url`: every refresh token is presented once, each response's
 * new refresh token joining the queue the next request takes from (autocannon resets
 * per-connection context on every loop). `pool` needs 2 × connections + 1 tokens.
 */
export async function measureRotation(
  url: string,
  clientId: string,
  pool: string[],
): Promise<{ figures: Figures; note: string }> {
  const probeToken = pool.pop()!;
  const body = (rt: string) => `grant_type=refresh_token&client_id=${clientId}&refresh_token=${rt}`;
  await probe(
    url,
    { method: 'POST', headers: FORM, body: body(probeToken) },
    (b) => typeof b.refresh_token === 'string',
  );
  const live: string[] = pool.splice(0, CONNECTIONS);
  const chained = (): autocannon.Options => ({
    url,
    method: 'POST',
    headers: FORM,
    requests: [
      {
        setupRequest: (req) => ({ ...req, body: body(live.shift() ?? 'exhausted') }),
        onResponse: (status, responseBody) => {
          if (status === 200) live.push(JSON.parse(responseBody).refresh_token);
        },
      },
    ],
  });
  await measure({ ...chained(), duration: 2 });
  // Tokens whose rotation was cut off by the end of the warm-up are replaced from the pool.
  live.push(...pool.splice(0, Math.max(0, CONNECTIONS - live.length)));
  return { figures: await measure(chained()), note: 'each refresh token presented once' };
}

/** The OAuth load scenarios with their goals (share of the baseline's req/s). */
export const oauthScenarios: Scenario[] = [
  {
    name: 'oauth userinfo (valid token)',
    goal: 0.3,
    peer: 'peer: node-oidc-provider (memory) userinfo',
    async run() {
      const { server, prepared } = await startPrepared(0, 0);
      try {
        const target = {
          url: `${server.url}/api/oauth/userinfo`,
          headers: { authorization: `Bearer ${prepared.accessToken}` },
        };
        await probe(target.url, { headers: target.headers }, (b) => typeof b.sub === 'string');
        return { figures: await warmThenMeasure(target) };
      } finally {
        await server.stop();
      }
    },
  },
  {
    name: 'oauth introspection (valid token, public client)',
    goal: 0.3,
    peer: 'peer: node-oidc-provider (memory) introspection',
    async run() {
      const { server, prepared } = await startPrepared(0, 0);
      try {
        const body = `token=${prepared.accessToken}&client_id=${DEMO_MEMBER_APP_ID}`;
        const target = {
          url: `${server.url}/api/oauth/introspect`,
          method: 'POST' as const,
          headers: FORM,
          body,
        };
        await probe(target.url, target, (b) => b.active === true);
        return { figures: await warmThenMeasure(target) };
      } finally {
        await server.stop();
      }
    },
  },
  {
    name: 'oauth refresh-token rotation',
    goal: 0.06,
    peer: 'peer: node-oidc-provider (memory) refresh-token rotation',
    async run() {
      const { server, prepared } = await startPrepared(0, CONNECTIONS * 2 + 1);
      try {
        return await measureRotation(
          `${server.url}/api/oauth/token`,
          DEMO_MEMBER_APP_ID,
          prepared.refreshTokens,
        );
      } finally {
        await server.stop();
      }
    },
  },
  {
    name: 'oauth code exchange with id_token',
    goal: 0.05,
    async run() {
      const { server, prepared } = await startPrepared(CODE_POOL, 0);
      try {
        const url = `${server.url}/api/oauth/token`;
        let next = 0;
        const body = () =>
          new URLSearchParams({
            grant_type: 'authorization_code',
            client_id: DEMO_MEMBER_APP_ID,
            code: prepared.codes[next++] ?? 'exhausted',
            code_verifier: prepared.verifier,
            redirect_uri: REDIRECT_URI,
            resource: prepared.resource,
          }).toString();
        await probe(
          url,
          { method: 'POST', headers: FORM, body: body() },
          (b) => typeof b.id_token === 'string',
        );
        const target: autocannon.Options = {
          url,
          method: 'POST',
          headers: FORM,
          requests: [{ setupRequest: (req) => ({ ...req, body: body() }) }],
        };
        const figures = await warmThenMeasure(target);
        return { figures, note: `${next} of ${prepared.codes.length} codes used` };
      } finally {
        await server.stop();
      }
    },
  },
];
