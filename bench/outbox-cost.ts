/**
 * CPU per write of `recordLectureProgress` with and without its outbox call (the event's
 * budget: ≥ 85 % of the write without it), in process on SQLite, the variants interleaved in rounds so the machine's load falls
 * on each alike. For finding where the outbox's cost goes, `node --cpu-prof`, or instruction
 * counts, which the machine's load does not move: with BENCH_CALLGRIND=1 the measured writes
 * (only) are counted, one variant per run:
 *   BENCH_CALLGRIND=1 BENCH_ONLY=outbox BENCH_ITERATIONS=500 BENCH_ROUNDS=1 valgrind \
 *     --tool=callgrind --instr-atstart=no ./node_modules/.bin/node bench/outbox-cost.ts
 * ("Collected" ÷ iterations = instructions per write).
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { recordLectureProgress } from '../src/domain/learning/record-progress.ts';
import { createEndpoint } from '../src/webhooks/endpoints.ts';
import { type Fixture, fixture, progressWithoutOutbox } from './event-scenarios.ts';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 5000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const only = process.env.BENCH_ONLY;
type Mode = 'none' | 'outbox' | 'endpoint';
const modes = (['none', 'outbox', 'endpoint'] as Mode[]).filter((m) => !only || m === only);

function writer(mode: Mode, f: Fixture) {
  return (i: number) => {
    const lecture = f.lectures[i % f.lectures.length];
    return mode === 'none'
      ? progressWithoutOutbox(f.db, f.schoolId, f.userId, lecture, i % 1000)
      : recordLectureProgress(f.db, f.schoolId, f.userId, {
          lectureId: lecture.id,
          positionSeconds: i % 1000,
        });
  };
}

const fixtures = await Promise.all(modes.map(() => fixture()));
const writers = modes.map((m, k) => writer(m, fixtures[k]));
const k = modes.indexOf('endpoint');
if (k >= 0) {
  await createEndpoint(
    fixtures[k].db,
    fixtures[k].schoolId,
    { url: 'https://hooks.example.com/bench', eventTypes: ['lecture.*'] },
    { key: new Uint8Array(32), allowLoopbackHttp: false, secretOverlapSeconds: 0 },
  );
}
for (const w of writers) for (let i = 0; i < 1000; i++) await w(i);
/** Switches callgrind's counting on or off for this process (BENCH_CALLGRIND=1). */
const counting = (on: boolean) => {
  if (process.env.BENCH_CALLGRIND === '1')
    execFileSync('callgrind_control', ['-i', on ? 'on' : 'off', String(process.pid)]);
};
const cpu = modes.map(() => 0);
const sys = modes.map(() => 0);
let n = 1000;
for (let r = 0; r < ROUNDS; r++) {
  for (const [j, w] of writers.entries()) {
    counting(true);
    const start = process.cpuUsage();
    for (let i = 0; i < ITERATIONS; i++) await w(n + i);
    const used = process.cpuUsage(start);
    counting(false);
    cpu[j] += used.user + used.system;
    sys[j] += used.system;
  }
  n += ITERATIONS;
}
const perWrite = cpu.map((c) => c / (ROUNDS * ITERATIONS));
for (const [j, mode] of modes.entries()) {
  const share =
    modes[0] === 'none'
      ? ` (${((perWrite[0] / perWrite[j]) * 100).toFixed(1)} % of the throughput without)`
      : '';
  const system = (sys[j] / (ROUNDS * ITERATIONS)).toFixed(1);
  console.log(`${mode.padEnd(9)} ${perWrite[j].toFixed(1)} µs CPU per write (${system} system)${share}`);
}
for (const f of fixtures) {
  await f.db.destroy();
  rmSync(f.dir, { recursive: true, force: true });
}
