import { DatabaseSync } from 'node:sqlite';
import { loadConfig } from '../src/config.ts';
import { newId } from '../src/crypto/ids.ts';
import { randomToken, sha256 } from '../src/crypto/tokens.ts';
import { DEMO_MEMBER_APP_ID } from '../src/domain/demo/demo-seed.ts';
import { isoIn, isoNow } from '../src/store/time.ts';
import { fillBigPostgres } from './big-store-pg.ts';
import { issueMemberToken } from './mcp-scenarios.ts';
import type { Scenario } from './measure.ts';
import { measure } from './measure.ts';
import { startLectern } from './servers.ts';

/** Spec §2.5's query, exactly, with first: 10. */
export const QUERY = JSON.stringify({
  query:
    '{ viewer { id email enrolledCourses(first: 10) { nodes { slug expireDate hasLifetimeAccess lastWatchedLecture { lectureId positionSeconds } } } } }',
});

const BIG_TOKENS = Number(process.env.BENCH_BIG_TOKENS ?? 1_000_000);
const SCOPES = ['openid', 'profile', 'email', 'account:read'];
const BIG_ENROLLMENTS = Number(process.env.BENCH_BIG_ENROLLMENTS ?? 100_000);

/**
 * Issues the demo student's member token through the real grant and token functions
 * (issueMemberToken) and, for the large variant, writes a million other access tokens and 100,000
 * enrollments of other members straight into the SQLite file with prepared statements, or into
 * PostgreSQL with generate_series (big-store-pg.ts) (bench
 * only: these fillers exist for the store's size, and a million calls through Kysely would take
 * minutes).
 */
async function prepare(env: Record<string, string>, big: boolean): Promise<string> {
  const token = await issueMemberToken(env, SCOPES);
  const config = loadConfig(env);
  if (config.database.engine === 'postgres') {
    if (big) {
      const fill = {
        clientId: DEMO_MEMBER_APP_ID,
        scopes: SCOPES.join(' '),
        resource: config.baseUrl,
        now: isoNow(),
        expires: isoIn(3600),
      };
      await fillBigPostgres(env.DATABASE_URL, fill, BIG_TOKENS, BIG_ENROLLMENTS);
    }
    return token;
  }
  const db = new DatabaseSync(config.database.sqlitePath!);
  try {
    const school = db.prepare("select id from schools where subdomain = 'demo'").get() as { id: string };
    const now = isoNow();
    const scopes = SCOPES.join(' ');
    const addGrant = db.prepare(
      `insert into oauth_grants (id, client_id, user_id, school_id, audience, scopes, resource, auth_time, created_at)
       values (?, ?, ?, ?, 'member', ?, ?, ?, ?)`,
    );
    const addToken = db.prepare(
      `insert into oauth_tokens (token_hash, kind, grant_id, client_id, user_id, school_id, scopes, resource, expires_at, created_at)
       values (?, 'access', ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const expires = isoIn(3600);
    db.exec('begin');
    if (big) {
      const courses = (
        db.prepare('select id from courses where school_id = ?').all(school.id) as { id: string }[]
      ).map((r) => r.id);
      const addUser = db.prepare(
        'insert into users (id, email, name, password_hash, created_at, updated_at) values (?, ?, ?, null, ?, ?)',
      );
      const addMembership = db.prepare(
        `insert into memberships (id, school_id, user_id, roles, status, created_at, updated_at)
         values (?, ?, ?, '["student"]', 'active', ?, ?)`,
      );
      const addEnrollment = db.prepare(
        `insert into enrollments (id, school_id, user_id, course_id, enrolled_at, expires_at, progress_percent, source, created_at, updated_at)
         values (?, ?, ?, ?, ?, null, 0, 'import', ?, ?)`,
      );
      const members = Math.ceil(BIG_ENROLLMENTS / courses.length);
      const users: string[] = [];
      for (let i = 0; i < members; i++) {
        const id = newId('usr');
        users.push(id);
        addUser.run(id, `bench-${i}@example.com`, `Bench ${i}`, now, now);
        addMembership.run(newId('mem'), school.id, id, now, now);
      }
      let enrolled = 0;
      for (const userId of users) {
        for (const courseId of courses) {
          if (enrolled++ >= BIG_ENROLLMENTS) break;
          addEnrollment.run(newId('enr'), school.id, userId, courseId, now, now, now);
        }
      }
      const grants: string[] = [];
      for (let i = 0; i < 1000; i++) {
        const id = newId('grt');
        grants.push(id);
        addGrant.run(
          id,
          DEMO_MEMBER_APP_ID,
          users[i % users.length],
          school.id,
          scopes,
          config.baseUrl,
          now,
          now,
        );
      }
      for (let i = 0; i < BIG_TOKENS; i++) {
        const g = grants[i % grants.length];
        addToken.run(
          sha256(randomToken()),
          g,
          DEMO_MEMBER_APP_ID,
          users[(i % 1000) % users.length],
          school.id,
          scopes,
          config.baseUrl,
          expires,
          now,
        );
      }
    }
    db.exec('commit');
    db.exec('analyze');
    return token;
  } finally {
    db.close();
  }
}

function accountScenario(name: string, big: boolean, goal: number, goalRelativeTo?: string): Scenario {
  return {
    name,
    goal,
    goalRelativeTo,
    async run() {
      let token = '';
      const server = await startLectern({
        prepare: async (env) => {
          token = await prepare(env, big);
        },
      });
      try {
        const request = {
          method: 'POST' as const,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: QUERY,
        };
        const probe = await fetch(`${server.url}/account/graphql`, request);
        const body = (await probe.json()) as { data?: { viewer?: { email?: string } } };
        if (probe.status !== 200 || body.data?.viewer?.email !== 'student@example.com') {
          throw new Error(`probe answered ${probe.status}: ${JSON.stringify(body)}`);
        }
        await measure({ url: `${server.url}/account/graphql`, ...request, duration: 2 });
        return { figures: await measure({ url: `${server.url}/account/graphql`, ...request }) };
      } finally {
        await server.stop();
      }
    },
  };
}

/** Issue #4's two Account API scenarios: the spec §2.5 query, then with a large store. */
const SMALL = 'graphql spec 2.5 query, first: 10';
export const accountScenarios: Scenario[] = [
  accountScenario(SMALL, false, 0.12),
  accountScenario(
    `graphql spec 2.5 query, ${BIG_TOKENS / 1e6}M tokens + ${BIG_ENROLLMENTS / 1e3}k enrollments`,
    true,
    0.8,
    SMALL,
  ),
];
