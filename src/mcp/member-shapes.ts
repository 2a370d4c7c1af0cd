import { z } from 'zod';
import type { EventRegistration } from '../domain/community/event-registrations.ts';
import type { EnrollmentSummary } from '../domain/learning/enrollments.ts';
import { eventOfRegistration, loadSchoolEvents } from '../domain/member/member-account.ts';
import type { MemberScope } from '../domain/member/member-reads.ts';
import { problems } from '../errors/problem-error.ts';
import type { AppContext } from '../http/context.ts';
import type { ToolCall } from './tool.ts';

/**
 * Shapes and helpers of the member tools: the member's own data at their school, read through
 * the same domain functions as the Account GraphQL API. The school and user come from the
 * token, never from arguments.
 */

/** The token's (school, user): the only member a member tool ever reads or changes. */
export function memberScope(call: ToolCall): MemberScope {
  // The HTTP gate admits member tools only with a token holding their scope.
  if (!call.principal) throw problems.forbidden('This tool needs a member access token.');
  return { schoolId: call.principal.schoolId, userId: call.principal.userId };
}

/** An enrollment as the member tools show it (the Account API's `enrolledCourses` fields). */
export const enrollmentShape = z.object({
  id: z.string(),
  course: z.object({ id: z.string(), slug: z.string(), title: z.string() }),
  enrolledAt: z.string(),
  expiresAt: z.string().nullable().describe('Null means lifetime access.'),
  hasLifetimeAccess: z.boolean(),
  active: z.boolean().describe('False once access has expired.'),
  progressPercent: z.number(),
  completedAt: z.string().nullable(),
  lastWatchedLecture: z
    .object({ lectureId: z.string(), positionSeconds: z.number().int(), watchedAt: z.string().nullable() })
    .nullable(),
});

/** A domain enrollment (summary or full) in the tools' shape. */
export function toEnrollment(e: EnrollmentSummary): z.input<typeof enrollmentShape> {
  return {
    id: e.id,
    course: e.course,
    enrolledAt: e.enrolledAt,
    expiresAt: e.expiresAt,
    hasLifetimeAccess: e.lifetime,
    active: e.active,
    progressPercent: e.progressPercent,
    completedAt: e.completedAt,
    lastWatchedLecture: e.lastLectureId
      ? {
          lectureId: e.lastLectureId,
          positionSeconds: e.lastPositionSeconds ?? 0,
          watchedAt: e.lastWatchedAt,
        }
      : null,
  };
}

/** An event registration with the event it is for. */
export const registrationShape = z.object({
  id: z.string(),
  status: z.enum(['registered', 'canceled', 'attended']),
  registeredAt: z.string(),
  canceledAt: z.string().nullable(),
  event: z.object({
    id: z.string(),
    title: z.string(),
    startsAt: z.string(),
    endsAt: z.string(),
    status: z.string(),
    onlineUrl: z.string().nullable(),
    location: z.string().nullable(),
  }),
});

/** Registrations with their events' status, place and joining link (one query). */
export async function toRegistrations(ctx: AppContext, scope: MemberScope, regs: EventRegistration[]) {
  const events = await loadSchoolEvents(
    ctx.db,
    scope,
    regs.map((r) => r.eventId),
  );
  return regs.map((r) => {
    const found = events.get(r.eventId);
    const e = found && eventOfRegistration(r, found);
    return {
      id: r.id,
      status: r.status,
      registeredAt: r.registeredAt,
      canceledAt: r.canceledAt,
      event: {
        ...r.event,
        status: e?.status ?? 'scheduled',
        onlineUrl: e?.onlineUrl ?? null,
        location: e?.location ?? null,
      },
    };
  });
}

/** A quiz as a member answers it: questions and choices, never which choice is right. */
export const quizShape = z.object({
  questions: z.array(z.object({ prompt: z.string(), choices: z.array(z.string()) })),
  passPercent: z.number().int().describe('The share of questions to answer right to pass, in percent.'),
});
