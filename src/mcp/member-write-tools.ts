import { z } from 'zod';
import {
  cancelMemberEventRegistration,
  recordMemberLectureProgress,
  registerMemberForEvent,
} from '../domain/member/member-account.ts';
import { changesData } from './hints.ts';
import {
  enrollmentShape,
  memberScope,
  registrationShape,
  toEnrollment,
  toRegistrations,
} from './member-shapes.ts';
import { type AnyMcpTool, defineTool } from './tool.ts';
import { toolInput } from './tool-input.ts';

/** The member's changes (`account:write`), over the Account API's domain functions. */

const recordProgress = defineTool({
  name: 'record_progress',
  title: 'Record progress in a lecture',
  description:
    'Records where you are in a lecture of a course you are enrolled in (position in seconds; completed=true marks it done). A quiz is completed only with answers that pass it: give `answers`, the chosen choice of each question (0-based, in order, from my_course_progress). Completed lectures stay completed.',
  audience: 'member',
  scope: 'account:write',
  input: toolInput({
    lectureId: z
      .string()
      .min(1)
      .max(64)
      .describe('A lecture id from my_course_progress or get_course_outline.'),
    positionSeconds: z
      .number()
      .int()
      .min(0)
      .max(1_000_000)
      .describe('Where you are in the lecture, in seconds.'),
    completed: z.boolean().optional().describe('true marks the lecture completed.'),
    answers: z
      .array(z.number().int().min(0).max(999).nullable())
      .max(100)
      .optional()
      .describe("For a quiz: each question's chosen choice, 0-based, in order (null: unanswered)."),
  }),
  output: z.object({
    enrollment: enrollmentShape,
    lecture: z.object({
      lectureId: z.string(),
      positionSeconds: z.number().int(),
      completed: z.boolean(),
      completedAt: z.string().nullable(),
    }),
  }),
  annotations: changesData({ destructive: false, idempotent: true }),
  run: async (call, input) => {
    const result = await recordMemberLectureProgress(call.ctx.db, memberScope(call), input);
    const { updatedAt: _u, ...lecture } = result.lecture;
    return { enrollment: toEnrollment(result.enrollment), lecture };
  },
  summarize: (out) =>
    `Recorded ${out.lecture.positionSeconds}s${out.lecture.completed ? ' (completed)' : ''}; course progress ${out.enrollment.progressPercent}%.`,
});

const registerForEvent = defineTool({
  name: 'register_for_event',
  title: 'Register for an event',
  description:
    'Registers you for an event of your school (ids from list_upcoming_events). Registering twice is harmless; a full, canceled or ended event is refused.',
  audience: 'member',
  scope: 'account:write',
  input: toolInput({
    eventId: z
      .string()
      .min(1)
      .max(64)
      .describe('An event id from list_upcoming_events or my_event_registrations.'),
  }),
  output: z.object({ registration: registrationShape }),
  annotations: changesData({ destructive: false, idempotent: true }),
  run: async (call, input) => {
    const scope = memberScope(call);
    const registration = await registerMemberForEvent(call.ctx.db, scope, input.eventId);
    return { registration: (await toRegistrations(call.ctx, scope, [registration]))[0] };
  },
  summarize: (out) =>
    `You are registered for "${out.registration.event.title}" (${out.registration.event.startsAt}).`,
});

const cancelRegistration = defineTool({
  name: 'cancel_event_registration',
  title: 'Cancel an event registration',
  description: 'Gives up your seat at an event of your school that has not ended.',
  audience: 'member',
  scope: 'account:write',
  input: toolInput({
    eventId: z.string().min(1).max(64).describe('The event id, as my_event_registrations shows it.'),
  }),
  output: z.object({ registration: registrationShape }),
  // Gives up a seat; cancelling again changes nothing more (it is refused as not registered).
  annotations: changesData({ destructive: true, idempotent: true }),
  run: async (call, input) => {
    const scope = memberScope(call);
    const registration = await cancelMemberEventRegistration(call.ctx.db, scope, input.eventId);
    return { registration: (await toRegistrations(call.ctx, scope, [registration]))[0] };
  },
  summarize: (out) => `Your registration for "${out.registration.event.title}" is canceled.`,
});

/** The member tools that change data. */
export const MEMBER_WRITE_TOOLS: readonly AnyMcpTool[] = [
  recordProgress,
  registerForEvent,
  cancelRegistration,
];
