import { z } from 'zod';
import {
  listPublicSchools,
  publicCourseOutline,
  publicSchool,
  searchPublicCourses,
  toPublicSchool,
  upcomingPublicEvents,
} from '../domain/catalog/public-catalogue.ts';
import { findSchoolById, type School } from '../domain/school/schools.ts';
import { problems } from '../errors/problem-error.ts';
import { howToAuthenticate } from './auth-tool.ts';
import { READ_ONLY } from './hints.ts';
import { type AnyMcpTool, defineTool, type ToolCall } from './tool.ts';
import { cursorArg, limitArg, toolInput } from './tool-input.ts';

/**
 * The school argument, per caller: without a token nothing names a school, so it is
 * required and the schema says so; with one it defaults to the token's school. Each caller is
 * listed, and validated against, its own variant (McpTool.anonymousInput).
 */
const SUBDOMAIN = z.string().min(1).max(63);
const schoolWithToken = SUBDOMAIN.optional().describe(
  "The school's subdomain, as list_schools gives it. Optional: defaults to the token's school; name another school to read its public catalogue.",
);
const schoolRequired = z
  .string({
    error: (issue) =>
      issue.input === undefined
        ? 'required without a token: name the school by its subdomain (list_schools lists the schools with a public catalogue and their subdomains)'
        : undefined,
  })
  .min(1)
  .max(63)
  .describe("The school's subdomain, as list_schools gives it (the schools with a public catalogue).");

/** A public tool's input for token holders and for anonymous callers, from one shape. */
function schoolInputs<S extends z.core.$ZodLooseShape>(shape: S) {
  return {
    input: toolInput({ school: schoolWithToken, ...shape }),
    anonymousInput: toolInput({ school: schoolRequired, ...shape }),
  };
}

const publicSchoolShape = z.object({ name: z.string(), subdomain: z.string() });
const publicCourseShape = z.object({
  slug: z.string(),
  title: z.string(),
  description: z.string(),
  priceAmount: z.number().int().describe('Price in minor units of currency (cents).'),
  currency: z.string(),
  free: z.boolean(),
  imageUrl: z.string().nullable(),
  publishedAt: z.string().nullable(),
  lecturers: z.array(z.string()),
});

/** The school a public tool reads: the named one, else the token's (anonymous calls name one). */
async function schoolOf(call: ToolCall, subdomain: string | undefined): Promise<School> {
  if (subdomain !== undefined) return publicSchool(call.ctx.db, subdomain);
  const school = call.principal && (await findSchoolById(call.ctx.db, call.principal.schoolId));
  // Unreachable through the schemas; kept so a direct caller gets the same answer.
  if (!school) throw problems.validation([{ field: 'school', message: 'name the school by its subdomain' }]);
  return school;
}

const listSchools = defineTool({
  name: 'list_schools',
  title: 'List schools with a public catalogue',
  description:
    'The schools whose catalogue anyone may read (at least one published course or upcoming public event), by name, with their subdomain for the school argument of search_courses, get_course_outline and list_upcoming_events. Public: no sign-in needed.',
  audience: 'public',
  scope: null,
  input: toolInput({
    query: z
      .string()
      .max(200)
      .optional()
      .describe('Words to look for in the name or subdomain; omit to list all.'),
    limit: limitArg,
    cursor: cursorArg,
  }),
  output: z.object({
    schools: z.array(
      z.object({
        subdomain: z.string().describe('Pass as school to the other public tools.'),
        name: z.string(),
        publishedCourses: z.number().int(),
        upcomingEvents: z.number().int().describe('Scheduled public events that have not ended.'),
      }),
    ),
    nextCursor: z.string().nullable(),
  }),
  annotations: READ_ONLY,
  run: (call, input) =>
    listPublicSchools(call.ctx.db, input.query, { limit: input.limit, cursor: input.cursor }),
  summarize: (out) =>
    `${out.schools.length} school(s) with a public catalogue${out.schools.length ? `: ${out.schools.map((s) => `${s.subdomain} (${s.name})`).join(', ')}` : ''}${out.nextCursor ? ' (more: pass nextCursor as cursor)' : ''}.`,
});

const searchCourses = defineTool({
  name: 'search_courses',
  title: "Search a school's course catalogue",
  description:
    'Searches the published courses of a school by text in the title, slug or description (omit query to list them all). Public: no sign-in needed.',
  audience: 'public',
  scope: null,
  ...schoolInputs({
    query: z.string().max(200).optional().describe('Words to look for; omit to list every published course.'),
    limit: limitArg,
    cursor: cursorArg,
  }),
  output: z.object({
    school: publicSchoolShape,
    courses: z.array(publicCourseShape),
    nextCursor: z.string().nullable(),
  }),
  annotations: READ_ONLY,
  run: async (call, input) => {
    const school = await schoolOf(call, input.school);
    const page = await searchPublicCourses(call.ctx.db, school.id, input.query, {
      limit: input.limit,
      cursor: input.cursor,
    });
    return { school: toPublicSchool(school), ...page };
  },
  summarize: (out) =>
    `${out.courses.length} published course(s) at ${out.school.name}${out.nextCursor ? ' (more: pass nextCursor as cursor)' : ''}.`,
});

const courseOutline = defineTool({
  name: 'get_course_outline',
  title: 'Get a course outline',
  description:
    'The outline of a published course: its sections and lectures with titles, types, durations and which are free previews. No lecture content. Public.',
  audience: 'public',
  scope: null,
  ...schoolInputs({
    course: z.string().min(1).max(200).describe('The course slug (courses[].slug of search_courses).'),
  }),
  output: z.object({
    school: publicSchoolShape,
    course: publicCourseShape,
    sections: z.array(
      z.object({
        title: z.string(),
        lectures: z.array(
          z.object({
            id: z.string(),
            title: z.string(),
            type: z.string(),
            durationSeconds: z.number().int(),
            freePreview: z.boolean(),
          }),
        ),
      }),
    ),
    lectureCount: z.number().int(),
    totalDurationSeconds: z.number().int(),
  }),
  annotations: READ_ONLY,
  run: async (call, input) => {
    const school = await schoolOf(call, input.school);
    const outline = await publicCourseOutline(call.ctx.db, school.id, input.course);
    return { school: toPublicSchool(school), ...outline };
  },
  summarize: (out) =>
    `"${out.course.title}": ${out.sections.length} section(s), ${out.lectureCount} lecture(s), ${Math.round(out.totalDurationSeconds / 60)} min.`,
});

const upcomingEvents = defineTool({
  name: 'list_upcoming_events',
  title: 'List upcoming public events',
  description: 'Scheduled public events of a school that have not ended yet, soonest first. Public.',
  audience: 'public',
  scope: null,
  ...schoolInputs({ limit: limitArg, cursor: cursorArg }),
  output: z.object({
    school: publicSchoolShape,
    events: z.array(
      z.object({
        id: z.string(),
        title: z.string(),
        description: z.string(),
        startsAt: z.string(),
        endsAt: z.string(),
        capacity: z.number().int().nullable(),
        spotsLeft: z.number().int().nullable(),
        online: z.boolean(),
        location: z.string().nullable(),
      }),
    ),
    nextCursor: z.string().nullable(),
  }),
  annotations: READ_ONLY,
  run: async (call, input) => {
    const school = await schoolOf(call, input.school);
    const page = await upcomingPublicEvents(call.ctx.db, school.id, {
      limit: input.limit,
      cursor: input.cursor,
    });
    return { school: toPublicSchool(school), ...page };
  },
  summarize: (out) => `${out.events.length} upcoming public event(s) at ${out.school.name}.`,
});

/** The anonymous tools, listed for everyone. */
export const PUBLIC_TOOLS: readonly AnyMcpTool[] = [
  listSchools,
  searchCourses,
  courseOutline,
  upcomingEvents,
  howToAuthenticate,
];
