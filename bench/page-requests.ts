/**
 * The people's pages the bench loads (bench/page-scenarios.ts over the socket, bench/page-probe.ts
 * in process): a signed-in browser is made through the real sign-in form, and the pages are those
 * of the demo school.
 */
import { DEMO } from '../src/domain/demo/demo-constants.ts';
import { DEMO_PASSWORD } from '../src/domain/demo/demo-seed.ts';

/** Anything that answers a Request: `fetch` over the socket, or `app.fetch` in process. */
export type Fetcher = (request: Request) => Promise<Response>;

/** The cookies of a response, as one Cookie header (name=value pairs, attributes dropped). */
function cookiesOf(res: Response, prior = ''): string {
  const jar = new Map(
    prior
      .split('; ')
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair] as const),
  );
  for (const line of res.headers.getSetCookie()) {
    const pair = line.split(';')[0]!;
    jar.set(pair.slice(0, pair.indexOf('=')), pair);
  }
  return [...jar.values()].join('; ');
}

/** Signs `email` in through GET and POST /login; returns the browser's Cookie header. */
export async function signIn(fetcher: Fetcher, base: string, email: string): Promise<string> {
  const form = await fetcher(new Request(`${base}/login`));
  const page = await form.text();
  const token = /name="csrf_token" value="([^"]+)"/.exec(page)?.[1];
  if (!token) throw new Error('the sign-in page has no CSRF token');
  const cookie = cookiesOf(form);
  const res = await fetcher(
    new Request(`${base}/login`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf_token: token, email, password: DEMO_PASSWORD }).toString(),
      redirect: 'manual',
    }),
  );
  await res.arrayBuffer();
  if (res.status !== 303) throw new Error(`signing ${email} in answered ${res.status}`);
  return cookiesOf(res, cookie);
}

const school = '/schools/demo';

/** The first lecture's address in the learning area's course page (the player's row loads it). */
export async function firstLecturePath(fetcher: Fetcher, base: string, cookie: string): Promise<string> {
  const res = await fetcher(
    new Request(`${base}${school}/learn/courses/${DEMO.courses.typescript}`, { headers: { cookie } }),
  );
  const page = await res.text();
  const path = new RegExp(`href="(${school}/learn/courses/${DEMO.courses.typescript}/lectures/[^"]+)"`).exec(
    page,
  )?.[1];
  if (!path) throw new Error(`no lecture on the course page (${res.status})`);
  return path;
}

/** The pages, by row: who loads them (undefined: nobody signed in) and where. */
export const pagePaths = {
  course: `${school}/courses/${DEMO.courses.typescript}`,
  catalogue: `${school}/courses`,
  myCourses: `${school}/learn`,
} as const;

/** The console's list of courses of the school the owner runs (its address names the school's id). */
export async function consoleListPath(fetcher: Fetcher, base: string, cookie: string): Promise<string> {
  const res = await fetcher(new Request(`${base}/admin`, { headers: { cookie }, redirect: 'manual' }));
  await res.arrayBuffer();
  const area = res.headers.get('location');
  if (!area) throw new Error(`/admin answered ${res.status} without a school`);
  return `${new URL(area, base).pathname}/courses`;
}

export const STUDENT = 'student@example.com';
export const OWNER = 'owner@example.com';
