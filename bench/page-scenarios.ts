/**
 * The people's pages under load, as a visitor or a signed-in person loads them: a school's public
 * course page and catalogue (nobody signed in), the learning area's My courses and player (the
 * demo student), and a console list (the demo school's owner). Each row signs in through the real
 * form first and checks one load answers 200 with the page it expects.
 */
import { cpuMicros } from './envelope-scenarios.ts';
import { DURATION_SECONDS, measure, type Scenario } from './measure.ts';
import {
  consoleListPath,
  type Fetcher,
  firstLecturePath,
  OWNER,
  pagePaths,
  STUDENT,
  signIn,
} from './page-requests.ts';
import { startLectern } from './servers.ts';

const socket: Fetcher = (request) => fetch(request);

function pageScenario(
  name: string,
  goal: number,
  page: (url: string) => Promise<{ path: string; cookie?: string; expect: string }>,
): Scenario {
  return {
    name,
    goal,
    async run() {
      const server = await startLectern();
      try {
        const { path, cookie, expect } = await page(server.url);
        const headers: Record<string, string> = cookie ? { cookie } : {};
        const probe = await fetch(`${server.url}${path}`, { headers, redirect: 'manual' });
        const text = await probe.text();
        if (probe.status !== 200 || !text.includes(expect)) {
          throw new Error(`probe of ${path} answered ${probe.status}: ${text.slice(0, 200)}`);
        }
        const target = { url: `${server.url}${path}`, headers };
        await measure({ ...target, duration: 2 });
        // Server CPU per request moves less than req/s when other work shares the machine.
        const before = cpuMicros(server.pid!);
        const figures = await measure(target);
        const requests = figures.requestsPerSecond * DURATION_SECONDS;
        const cpu = (cpuMicros(server.pid!) - before) / requests;
        return { figures, note: `server CPU ${cpu.toFixed(0)} µs per request` };
      } finally {
        await server.stop();
      }
    },
  };
}

export const pageScenarios: Scenario[] = [
  pageScenario('page: public course page', 0.2, async () => ({
    path: pagePaths.course,
    expect: 'Course outline',
  })),
  pageScenario('page: public catalogue', 0.2, async () => ({
    path: pagePaths.catalogue,
    expect: '<h1>Courses</h1>',
  })),
  pageScenario('page: learning area, My courses', 0.15, async (url) => ({
    path: pagePaths.myCourses,
    cookie: await signIn(socket, url, STUDENT),
    expect: 'My courses',
  })),
  pageScenario('page: learning area, player', 0.15, async (url) => {
    const cookie = await signIn(socket, url, STUDENT);
    return { path: await firstLecturePath(socket, url, cookie), cookie, expect: 'class="learn"' };
  }),
  pageScenario('page: console list of courses', 0.1, async (url) => {
    const cookie = await signIn(socket, url, OWNER);
    return { path: await consoleListPath(socket, url, cookie), cookie, expect: '<table' };
  }),
];
