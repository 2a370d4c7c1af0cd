import { createServer } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createCourse } from '../../src/domain/catalog/courses.ts';
import { createLecture, createSection } from '../../src/domain/catalog/curriculum.ts';
import { recordOrder } from '../../src/domain/commerce/orders.ts';
import { registerForEvent } from '../../src/domain/community/event-registrations.ts';
import { createEvent } from '../../src/domain/community/events.ts';
import { enroll } from '../../src/domain/learning/enrollments.ts';
import { addRoles } from '../../src/domain/school/memberships.ts';
import { createSchool } from '../../src/domain/school/schools.ts';
import { createUser } from '../../src/domain/school/users.ts';
import { listen, type RunningServer } from '../../src/runtime.ts';
import { isoIn } from '../../src/store/time.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

/** A Lectern listening on a real loopback port whose BASE_URL is that address (MCP clients speak HTTP). */
export interface LiveApp {
  readonly t: TestApp;
  readonly server: RunningServer;
  readonly baseUrl: string;
  readonly mcpUrl: URL;
  close(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Starts the app on 127.0.0.1 with BASE_URL equal to where it listens. */
export async function startLiveApp(
  env: Record<string, string> = {},
  options: Parameters<typeof createTestApp>[1] = {},
): Promise<LiveApp> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const t = await createTestApp({ BASE_URL: baseUrl, ...env }, options);
    try {
      const server = await listen(t.app, '127.0.0.1', port);
      return {
        t,
        server,
        baseUrl,
        mcpUrl: new URL('/mcp', baseUrl),
        close: async () => {
          await server.shutdown(1000);
          await t.close();
        },
      };
    } catch (err) {
      await t.close();
      if (attempt >= 3) throw err;
    }
  }
}

/** The people and things of a seeded school, by role. */
export interface Seeded {
  schoolId: string;
  otherSchoolId: string;
  ownerId: string;
  studentId: string;
  publishedCourseId: string;
  lectureIds: string[];
  upcomingEventId: string;
  secondEventId: string;
}

/** A school "Acme Academy" (subdomain `acme`) with courses, curriculum, events and one student's data. */
export async function seedSchool(t: TestApp): Promise<Seeded> {
  const db = t.runtime.db;
  const school = await createSchool(db, { name: 'Acme Academy', subdomain: 'acme', currency: 'EUR' });
  const other = await createSchool(db, { name: 'Other School', subdomain: 'other' });
  const owner = await createUser(db, { email: 'owner@acme.test', name: 'Olive Owner', passwordHash: null });
  const student = await createUser(db, {
    email: 'student@acme.test',
    name: 'Sam Student',
    passwordHash: null,
  });
  await addRoles(db, school.id, owner.id, ['owner']);
  await addRoles(db, school.id, student.id, ['student']);

  const published = await createCourse(db, school.id, {
    slug: 'intro-to-typescript',
    title: 'Intro to TypeScript',
    description: 'Types for JavaScript developers.',
    status: 'published',
    priceAmount: 4900,
  });
  await createCourse(db, school.id, {
    slug: 'secret-draft',
    title: 'Secret Draft TypeScript',
    description: 'Not yet public.',
  });
  await createCourse(db, other.id, {
    slug: 'other-typescript',
    title: 'Other TypeScript',
    status: 'published',
  });
  const s1 = await createSection(db, school.id, published.id, { title: 'Basics' });
  const l1 = await createLecture(db, school.id, s1.id, {
    title: 'Welcome',
    type: 'video',
    durationSeconds: 300,
    isFreePreview: true,
    videoUrl: 'https://video.example/secret-welcome.mp4',
  });
  const l2 = await createLecture(db, school.id, s1.id, {
    title: 'Types',
    type: 'text',
    durationSeconds: 600,
    body: 'PAID BODY TEXT',
  });
  const s2 = await createSection(db, school.id, published.id, { title: 'Generics' });
  const l3 = await createLecture(db, school.id, s2.id, {
    title: 'Generic functions',
    type: 'video',
    durationSeconds: 900,
  });

  const upcoming = await createEvent(db, school.id, {
    title: 'Live Q&A',
    startsAt: isoIn(86400),
    endsAt: isoIn(90000),
    capacity: 10,
    onlineUrl: 'https://meet.example/secret-room',
  });
  const second = await createEvent(db, school.id, {
    title: 'Office hours',
    startsAt: isoIn(2 * 86400),
    endsAt: isoIn(2 * 86400 + 3600),
    location: 'Room 1',
  });
  await createEvent(db, school.id, {
    title: 'Members-only meetup',
    startsAt: isoIn(86400),
    endsAt: isoIn(90000),
    visibility: 'members',
  });
  await createEvent(db, school.id, { title: 'Past webinar', startsAt: isoIn(-90000), endsAt: isoIn(-86400) });

  await enroll(db, school.id, { userId: student.id, courseId: published.id });
  await recordOrder(db, school.id, {
    userId: student.id,
    currency: 'EUR',
    items: [
      { productType: 'course', productId: published.id, title: 'Intro to TypeScript', unitAmount: 4900 },
    ],
  });
  await registerForEvent(db, school.id, upcoming.id, student.id);
  return {
    schoolId: school.id,
    otherSchoolId: other.id,
    ownerId: owner.id,
    studentId: student.id,
    publishedCourseId: published.id,
    lectureIds: [l1.id, l2.id, l3.id],
    upcomingEventId: upcoming.id,
    secondEventId: second.id,
  };
}

/** An MCP client connected to the live app, with an optional bearer token; `modern` negotiates 2026-07-28. */
export async function connectClient(
  live: LiveApp,
  options: { token?: string; modern?: boolean } = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client(
    { name: 'lectern-test', version: '1.0.0' },
    options.modern ? { versionNegotiation: { mode: 'auto' } } : {},
  );
  const transport = new StreamableHTTPClientTransport(live.mcpUrl, {
    requestInit: options.token ? { headers: { Authorization: `Bearer ${options.token}` } } : undefined,
  });
  await client.connect(transport);
  return { client, transport };
}

/** Posts one raw JSON-RPC body to /mcp, as a 2025-era client would. */
export function postMcp(
  live: LiveApp,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(live.mcpUrl, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2025-11-25',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Reads a JSON-RPC answer whether it came as JSON or as one SSE `message` event. */
export async function readJsonRpc(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const data = text
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => l.slice(6));
    return JSON.parse(data[data.length - 1]);
  }
  return JSON.parse(text);
}
