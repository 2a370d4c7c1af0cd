import autocannon from 'autocannon';

/** One autocannon run's figures. */
export interface Figures {
  readonly requestsPerSecond: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
}

/** One load scenario (the scenario files and the list in scenarios.ts share it): its goal is a fraction of the baseline's req/s. */
export interface Scenario {
  readonly name: string;
  readonly goal?: number;
  /** When set, `goal` is a share of that scenario's req/s instead of the baseline's. */
  readonly goalRelativeTo?: string;
  /** The peer row (node-oidc-provider) this scenario is compared with; the aim is 1.5× its req/s. */
  readonly peer?: string;
  /** `check`, when returned, replaces the ratio goal's verdict (the RSS row is judged in MB). */
  run(): Promise<{ figures: Figures; note?: string; check?: { met: boolean; text: string } }>;
}

export const DURATION_SECONDS = Number(process.env.BENCH_DURATION ?? 10);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

/** Runs autocannon against one target and returns req/s and p99 latency. */
export async function measure(options: autocannon.Options): Promise<Figures> {
  const result = await autocannon({
    connections: CONNECTIONS,
    duration: DURATION_SECONDS,
    ...options,
  });
  return {
    requestsPerSecond: result.requests.average,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/** A 2 s warm-up (figures thrown away), then the measured run: what every socket row does. */
export async function warmThenMeasure(options: autocannon.Options): Promise<Figures> {
  await measure({ ...options, duration: 2 });
  return measure(options);
}
