/** A due delivery as the worker's claim sees it: which school and endpoint it belongs to. */
export interface DueDelivery {
  readonly id: string;
  readonly school_id: string;
  readonly endpoint_id: string;
}

/** What one claim may take. */
export interface ClaimBounds {
  /** Lanes free on this instance: endpoints it may start calling now. */
  readonly lanes: number;
  /** Endpoints one school may have in flight on this instance at once. */
  readonly perSchool: number;
  /** Deliveries leased at most, over every endpoint chosen. */
  readonly batch: number;
  /** Endpoints already in flight on this instance, counted by school. */
  readonly inFlight: ReadonlyMap<string, number>;
}

/**
 * Chooses which endpoints get the free lanes, and which of their due deliveries to lease. Each
 * free lane goes to the school with the fewest endpoints in flight (ties: the school whose oldest
 * due delivery waited longest), and within a school to its endpoint waiting longest; no school
 * goes over `perSchool`, so a school whose endpoints all hang can never take every lane. The
 * batch is shared out one delivery per endpoint at a time, so a small batch still serves every
 * chosen endpoint. `due` is oldest first; each run returned is one endpoint's, oldest first.
 */
export function chooseRuns(due: readonly DueDelivery[], bounds: ClaimBounds): DueDelivery[][] {
  const queues = endpointRunsBySchool(due);
  const taken = new Map(bounds.inFlight);
  const chosen: DueDelivery[][] = [];
  while (chosen.length < bounds.lanes) {
    const school = neediestSchool(queues, taken, bounds.perSchool);
    if (school === undefined) break;
    chosen.push(queues.get(school)?.shift() ?? []);
    taken.set(school, (taken.get(school) ?? 0) + 1);
  }
  return shareBatch(chosen, bounds.batch);
}

/** Each school's due deliveries as one run per endpoint, the endpoint waiting longest first. */
function endpointRunsBySchool(due: readonly DueDelivery[]): Map<string, DueDelivery[][]> {
  const runs = new Map<string, DueDelivery[]>();
  for (const d of due) {
    const run = runs.get(d.endpoint_id);
    if (run) run.push(d);
    else runs.set(d.endpoint_id, [d]);
  }
  const bySchool = new Map<string, DueDelivery[][]>();
  // Map order is insertion order: the endpoint whose oldest delivery came first comes first.
  for (const run of runs.values()) {
    const school = run[0].school_id;
    bySchool.set(school, [...(bySchool.get(school) ?? []), run]);
  }
  return bySchool;
}

function neediestSchool(
  queues: ReadonlyMap<string, DueDelivery[][]>,
  taken: ReadonlyMap<string, number>,
  perSchool: number,
): string | undefined {
  let best: { school: string; busy: number; oldest: string } | undefined;
  for (const [school, runs] of queues) {
    const busy = taken.get(school) ?? 0;
    if (runs.length === 0 || busy >= perSchool) continue;
    const oldest = runs[0][0].id;
    if (!best || busy < best.busy || (busy === best.busy && oldest < best.oldest)) {
      best = { school, busy, oldest };
    }
  }
  return best?.school;
}

/** Trims the runs to `batch` deliveries in all, taking one from each run in turn. */
function shareBatch(runs: readonly DueDelivery[][], batch: number): DueDelivery[][] {
  const counts = runs.map(() => 0);
  let left = batch;
  for (let depth = 0; left > 0; depth++) {
    let took = false;
    for (let i = 0; i < runs.length && left > 0; i++) {
      if (runs[i].length <= depth) continue;
      counts[i]++;
      left--;
      took = true;
    }
    if (!took) break;
  }
  return runs.map((run, i) => run.slice(0, counts[i])).filter((run) => run.length > 0);
}
