import type { EnrollmentState } from '../domain/learning/enrollments.ts';
import {
  countMemberEnrollments,
  countMemberEventRegistrations,
  countMemberOrders,
  countMemberSubscriptions,
  listMemberEventRegistrations,
  listMemberOrders,
  listMemberSubscriptions,
} from '../domain/member/member-account.ts';
import { listMemberEnrollmentSummaries } from '../domain/member/member-reads.ts';
import { type ConnectionArgs, lazyConnection } from './connection.ts';
import type { AccountContext } from './context.ts';

/** The viewer carries nothing itself: every field reads through the context's member scope. */
export interface ViewerNode {
  readonly kind: 'viewer';
}

export const VIEWER: ViewerNode = { kind: 'viewer' };

type Args<T = object> = ConnectionArgs & T;

/** Resolvers of Query, Viewer and School. */
export const viewerResolvers = {
  Query: {
    viewer: (): ViewerNode => VIEWER,
  },
  Viewer: {
    id: (_: ViewerNode, __: unknown, ctx: AccountContext) => ctx.scope.userId,
    email: async (_: ViewerNode, __: unknown, ctx: AccountContext) => (await ctx.loaders.viewer()).email,
    name: async (_: ViewerNode, __: unknown, ctx: AccountContext) => (await ctx.loaders.viewer()).name,
    roles: (_: ViewerNode, __: unknown, ctx: AccountContext) => ctx.principal.roles,
    school: (_: ViewerNode, __: unknown, ctx: AccountContext) => ctx.loaders.school(),
    enrolledCourses: (
      _: ViewerNode,
      args: Args<{ filter?: { state?: string | null } | null }>,
      ctx: AccountContext,
    ) => {
      const state = args.filter?.state ? (args.filter.state.toLowerCase() as EnrollmentState) : undefined;
      return lazyConnection(
        args,
        (page) => listMemberEnrollmentSummaries(ctx.db, ctx.scope, page, state),
        () => countMemberEnrollments(ctx.db, ctx.scope, state),
      );
    },
    orders: (_: ViewerNode, args: Args, ctx: AccountContext) =>
      lazyConnection(
        args,
        (page) => listMemberOrders(ctx.db, ctx.scope, page),
        () => countMemberOrders(ctx.db, ctx.scope),
      ),
    eventRegistrations: (_: ViewerNode, args: Args, ctx: AccountContext) =>
      lazyConnection(
        args,
        (page) => listMemberEventRegistrations(ctx.db, ctx.scope, page),
        () => countMemberEventRegistrations(ctx.db, ctx.scope),
      ),
    subscriptions: (_: ViewerNode, args: Args, ctx: AccountContext) =>
      lazyConnection(
        args,
        (page) => listMemberSubscriptions(ctx.db, ctx.scope, page),
        () => countMemberSubscriptions(ctx.db, ctx.scope),
      ),
  },
};
