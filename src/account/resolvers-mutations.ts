import {
  cancelMemberEventRegistration,
  recordMemberLectureProgress,
  registerMemberForEvent,
  renameMember,
} from '../domain/member/member-account.ts';
import type { AccountContext } from './context.ts';
import { VIEWER, type ViewerNode } from './resolvers-viewer.ts';

/**
 * Mutation resolvers: thin calls into the member's domain functions, which check enrollment,
 * access and event rules and raise coded problems (NOT_ENROLLED, EVENT_FULL, …). The scope
 * check (account:write) happened before execution. Loaders are reset after each write so the
 * fields selected on the result read the new rows.
 */
export const mutationResolvers = {
  Mutation: {
    recordLectureProgress: async (
      _: unknown,
      args: {
        input: {
          lectureId: string;
          positionSeconds: number;
          completed?: boolean | null;
          answers?: Array<number | null> | null;
        };
      },
      ctx: AccountContext,
    ) => {
      const { lectureId, positionSeconds, completed, answers } = args.input;
      const result = await recordMemberLectureProgress(ctx.db, ctx.scope, {
        lectureId,
        positionSeconds,
        completed: completed ?? undefined,
        answers: answers ?? undefined,
      });
      ctx.loaders.reset();
      return { enrolledCourse: result.enrollment, lectureProgress: result.lecture };
    },
    registerForEvent: async (_: unknown, args: { eventId: string }, ctx: AccountContext) => {
      const registration = await registerMemberForEvent(ctx.db, ctx.scope, args.eventId);
      ctx.loaders.reset();
      return registration;
    },
    cancelEventRegistration: async (_: unknown, args: { eventId: string }, ctx: AccountContext) => {
      const registration = await cancelMemberEventRegistration(ctx.db, ctx.scope, args.eventId);
      ctx.loaders.reset();
      return registration;
    },
    updateViewerName: async (
      _: unknown,
      args: { name: string },
      ctx: AccountContext,
    ): Promise<ViewerNode> => {
      await renameMember(ctx.db, ctx.scope, args.name);
      ctx.loaders.reset();
      return VIEWER;
    },
  },
};
