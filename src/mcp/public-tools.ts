import { z } from 'zod';
import { MAX_PAGE_LIMIT } from '../domain/pagination.ts';
import {
  publicCourseOutline,
  publicSchool,
  searchPublicCourses,
  toPublicSchool,
  upcomingPublicEvents,
} from '../domain/public-catalogue.ts';
import { findSchoolById, type School } from '../domain/schools.ts';
import { problems } from '../errors/problem-error.ts';
import { howToAuthenticate } from './auth-tool.ts';
import { type AnyMcpTool, defineTool, READ_ONLY, type ToolCall } from './tool.ts';

const schoolArg = z
  .string()
  .min(1)
  .max(63)
  .optional()
  .describe('The school\'s subdomain, e.g. "demo". Optional with a token: defaults to the token\'s school.');
const limitArg = z
  .number()
  .int()
  .min(1)
  .max(MAX_PAGE_LIMIT)
  .optional()
  .describe('Page size, 1-100 (default 20).');
const cursorArg = z.string().max(200).optional().describe('next_cursor of the previous page.');

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

/** The school a public tool reads: the named one, else the token's, else an argument error. */
async function schoolOf(call: ToolCall, subdomain: string | undefined): Promise<School> {
  if (subdomain !== undefined) return publicSchool(call.ctx.db, subdomain);
  if (call.principal) {
    const school = await findSchoolById(call.ctx.db, call.principal.schoolId);
    if (school) return school;
  }
  throw problems.validation([
    { field: 'school', message: 'name the school by its subdomain (required without a token)' },
  ]);
}

const searchCourses = defineTool({
  name: 'search_courses',
  title: "Search a school's course catalogue",
  description:
    'Searches the published courses of a school by text in the title, slug or description (omit query to list them all). Public: no sign-in needed.',
  audience: 'public',
  scope: null,
  input: z.object({
    school: schoolArg,
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
  input: z.object({
    school: schoolArg,
    course: z.string().min(1).max(200).describe('The course slug, as returned by search_courses.'),
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
  input: z.object({ school: schoolArg, limit: limitArg, cursor: cursorArg }),
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
  searchCourses,
  courseOutline,
  upcomingEvents,
  howToAuthenticate,
];
