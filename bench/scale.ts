/**
 * One instance against two on the same database (`BENCH_DATABASE_URL`, PostgreSQL): UserInfo
 * and the §2.5 GraphQL query, first on one instance, then on two loaded at once (each with the
 * usual connections), so docs/scaling.md can say what a second instance adds on this machine.
 * The hello-world baseline is measured first for the same-run ratio.
 */
import { QUERY } from './account-scenarios.ts';
import { issueMemberToken } from './mcp-scenarios.ts';
import { type Figures, measure } from './measure.ts';
import { BENCH_DATABASE_URL, startHello, startLectern } from './servers.ts';

if (!BENCH_DATABASE_URL)
  throw new Error('scale.ts needs BENCH_DATABASE_URL (two instances share one PostgreSQL)');

const hello = await startHello();
await measure({ url: `${hello.url}/`, duration: 2 });
const baseline = await measure({ url: `${hello.url}/` });
await hello.stop();

let token = '';
const a = await startLectern({
  prepare: async (env) => {
    token = await issueMemberToken(env, ['openid', 'profile', 'email', 'account:read']);
  },
});
// Behind one load balancer both instances have the same public URL (tokens are bound to it).
const b = await startLectern({ databaseUrl: a.databaseUrl, env: { BASE_URL: a.url } });
const targets = (url: string) => ({
  userinfo: { url: `${url}/api/oauth/userinfo`, headers: { authorization: `Bearer ${token}` } },
  graphql: {
    url: `${url}/account/graphql`,
    method: 'POST' as const,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: QUERY,
  },
});
const share = (f: Figures) => `${((f.requestsPerSecond / baseline.requestsPerSecond) * 100).toFixed(1)}%`;
try {
  console.log(`baseline ${baseline.requestsPerSecond.toFixed(0)} req/s`);
  for (const path of ['userinfo', 'graphql'] as const) {
    const one = targets(a.url)[path];
    await measure({ ...one, duration: 2 });
    const single = await measure(one);
    const [x, y] = await Promise.all([measure(one), measure(targets(b.url)[path])]);
    const both = x.requestsPerSecond + y.requestsPerSecond;
    const bad = single.non2xx + x.non2xx + y.non2xx + single.errors + x.errors + y.errors;
    console.log(
      `${path.padEnd(9)} one instance ${single.requestsPerSecond.toFixed(0)} req/s (${share(single)}), ` +
        `two ${both.toFixed(0)} req/s (${((both / baseline.requestsPerSecond) * 100).toFixed(1)}%, ` +
        `${(both / single.requestsPerSecond).toFixed(2)}x)${bad ? `  INVALID: ${bad} non-2xx/errors` : ''}`,
    );
  }
} finally {
  await b.stop();
  await a.stop();
}
