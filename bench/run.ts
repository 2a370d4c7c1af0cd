/**
 * `npm run bench`: load scenarios against Lectern, each as a ratio to a bare Hono hello-world
 * measured in the same run on the same machine. Not a test: it prints figures and which goals
 * were met. BENCH_DURATION (s), BENCH_CONNECTIONS and BENCH_ONLY (';'-separated parts of scenario names) tune it.
 */
import { type Figures, measure } from './measure.ts';
import { scenarios } from './scenarios.ts';
import { startHello } from './servers.ts';

interface Row {
  name: string;
  figures: Figures;
  goal?: number;
  goalRelativeTo?: string;
  peer?: string;
  note?: string;
  check?: { met: boolean; text: string };
}

/** The aim against the peer (node-oidc-provider in memory): this many times its req/s. */
const PEER_AIM = 1.5;

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

async function main(): Promise<void> {
  const only = process.env.BENCH_ONLY?.split(';')
    .map((s) => s.trim())
    .filter(Boolean);
  const hello = await startHello();
  let baseline: Figures;
  try {
    await measure({ url: `${hello.url}/`, duration: 2 }); // warm-up
    baseline = await measure({ url: `${hello.url}/` });
  } finally {
    await hello.stop();
  }
  const rows: Row[] = [{ name: 'baseline: hono hello-world', figures: baseline }];
  console.log(`baseline: ${baseline.requestsPerSecond.toFixed(0)} req/s, p99 ${baseline.p99Ms} ms`);
  for (const scenario of scenarios) {
    if (only && !only.some((o) => scenario.name.includes(o))) continue;
    process.stdout.write(`running ${scenario.name} … `);
    try {
      const { figures, note, check } = await scenario.run();
      rows.push({
        name: scenario.name,
        figures,
        goal: scenario.goal,
        goalRelativeTo: scenario.goalRelativeTo,
        peer: scenario.peer,
        note,
        check,
      });
      console.log(`${figures.requestsPerSecond.toFixed(0)} req/s`);
    } catch (err) {
      console.log(`failed: ${(err as Error).message}`);
      rows.push({
        name: scenario.name,
        figures: { requestsPerSecond: 0, p99Ms: 0, non2xx: 0, errors: 1 },
        goal: scenario.goal,
        peer: scenario.peer,
        note: `failed: ${(err as Error).message}`,
      });
    }
  }
  console.log('');
  console.log(
    `${pad('scenario', 60)} ${pad('req/s', 9)} ${pad('p99 ms', 8)} ${pad('ratio', 7)} ${pad('goal', 6)} result`,
  );
  for (const r of rows) {
    const ratio = r.figures.requestsPerSecond / baseline.requestsPerSecond;
    const reference = r.goalRelativeTo ? rows.find((x) => x.name === r.goalRelativeTo) : undefined;
    const goalRatio = reference ? r.figures.requestsPerSecond / reference.figures.requestsPerSecond : ratio;
    const bad = r.figures.non2xx + r.figures.errors;
    const verdict = r.check
      ? `${bad > 0 ? `INVALID (${bad} non-2xx/errors) ` : ''}${r.check.met ? 'met' : 'MISSED'}: ${r.check.text}`
      : bad > 0
        ? `INVALID (${bad} non-2xx/errors)`
        : r.goal === undefined
          ? ''
          : goalRatio >= r.goal
            ? 'met'
            : 'MISSED';
    const goal =
      r.goal === undefined
        ? ''
        : `${(r.goal * 100).toFixed(0)}%${reference ? ' of the small-store run' : ''}`;
    const relative = reference ? ` (${(goalRatio * 100).toFixed(0)}% of the small-store run)` : '';
    console.log(
      `${pad(r.name, 60)} ${pad(r.figures.requestsPerSecond.toFixed(0), 9)} ${pad(String(r.figures.p99Ms), 8)} ${pad(
        `${(ratio * 100).toFixed(1)}%`,
        7,
      )} ${pad(goal, 6)} ${verdict}${relative}${r.note ? `  ${r.note}` : ''}`,
    );
  }
  printPeerRatios(rows);
}

/** Lectern's rows against the peer's (node-oidc-provider in memory, same runtime, same run). */
function printPeerRatios(rows: Row[]): void {
  const compared = rows.filter((r) => r.peer && rows.some((p) => p.name === r.peer));
  if (compared.length === 0) return;
  console.log('');
  console.log(`against the peer (aim: ${PEER_AIM}x its req/s)`);
  for (const r of compared) {
    const peer = rows.find((p) => p.name === r.peer)!;
    const times = r.figures.requestsPerSecond / peer.figures.requestsPerSecond;
    console.log(`${pad(r.name, 60)} ${times.toFixed(2)}x  ${times >= PEER_AIM ? 'met' : 'MISSED'}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
