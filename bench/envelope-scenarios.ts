/**
 * The request envelope alone (envelope-server.ts: the hello-world behind what every Lectern
 * request passes before its route) against the bare hello-world, both started for this row and
 * loaded in turns, so each ratio compares two measurements a few seconds apart rather than this
 * row with the baseline taken at the start of the run. Beside req/s, each server's CPU per request
 * from /proc/<pid>/stat (Linux), which moves less than req/s when other work shares the machine.
 */
import { readFileSync } from 'node:fs';
import { DURATION_SECONDS, type Figures, measure, type Scenario } from './measure.ts';
import { type BenchServer, startEnvelope, startHello } from './servers.ts';

/** Turns per server; each turn a slice of BENCH_DURATION after a 1 s warm-up. */
const TURNS = 4;
/** Envelope ÷ hello-world req/s, median of the turns, below which the row reads MISSED. */
export const ENVELOPE_GOAL = 0.6;

/** User + system CPU of a process so far, in µs (clock ticks of 10 ms). */
export function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** One turn: a 1 s warm-up, then `seconds` of load; req/s, figures and server CPU per request. */
async function turn(
  server: BenchServer,
  seconds: number,
): Promise<{ figures: Figures; cpuPerRequest: number }> {
  const url = `${server.url}/`;
  await measure({ url, duration: 1 });
  const before = cpuMicros(server.pid!);
  const figures = await measure({ url, duration: seconds });
  const spent = cpuMicros(server.pid!) - before;
  const requests = figures.requestsPerSecond * seconds;
  return { figures, cpuPerRequest: requests > 0 ? spent / requests : Number.NaN };
}

const pct = (ratio: number) => `${(ratio * 100).toFixed(1)} %`;

export const envelopeScenarios: Scenario[] = [
  {
    name: 'envelope: hello-world behind the request envelope and body limits',
    async run() {
      const hello = await startHello();
      const envelope = await startEnvelope().catch(async (err) => {
        await hello.stop();
        throw err;
      });
      try {
        const probe = await fetch(`${envelope.url}/`);
        if (probe.status !== 200 || !probe.headers.get('x-request-id')) {
          throw new Error(`probe answered ${probe.status} without a request id`);
        }
        await probe.arrayBuffer();
        const seconds = Math.max(1, DURATION_SECONDS / TURNS);
        const rps: number[] = [];
        const cpu: number[] = [];
        const envelopeTurns: Figures[] = [];
        let bad = 0;
        let cpuHello = 0;
        let cpuEnvelope = 0;
        for (let i = 0; i < TURNS; i++) {
          // Alternate which goes first, so neither always meets the machine a moment later.
          const first = i % 2 === 0 ? hello : envelope;
          const a = await turn(first, seconds);
          const b = await turn(first === hello ? envelope : hello, seconds);
          const [h, e] = first === hello ? [a, b] : [b, a];
          bad += h.figures.non2xx + h.figures.errors;
          envelopeTurns.push(e.figures);
          rps.push(e.figures.requestsPerSecond / h.figures.requestsPerSecond);
          cpu.push(h.cpuPerRequest / e.cpuPerRequest);
          cpuHello += h.cpuPerRequest / TURNS;
          cpuEnvelope += e.cpuPerRequest / TURNS;
        }
        const figures: Figures = {
          requestsPerSecond: median(envelopeTurns.map((f) => f.requestsPerSecond)),
          p99Ms: median(envelopeTurns.map((f) => f.p99Ms)),
          non2xx: bad + envelopeTurns.reduce((n, f) => n + f.non2xx, 0),
          errors: envelopeTurns.reduce((n, f) => n + f.errors, 0),
        };
        const ratio = median(rps);
        return {
          figures,
          check: {
            met: ratio >= ENVELOPE_GOAL,
            text: `${pct(ratio)} of the hello-world loaded in turns beside it (goal ≥ ${pct(ENVELOPE_GOAL)}; turns ${rps.map(pct).join(', ')}); CPU per request ${cpuEnvelope.toFixed(1)} µs against ${cpuHello.toFixed(1)} µs (${pct(median(cpu))})`,
          },
        };
      } finally {
        await Promise.all([hello.stop(), envelope.stop()]);
      }
    },
  },
];
