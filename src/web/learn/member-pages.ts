/**
 * The learning area's pages about the member rather than a course: their orders, the school's
 * upcoming events with their registrations, and their subscription.
 */
import type { Hono } from 'hono';
import {
  cancelMemberEventRegistration,
  listMemberEventRegistrations,
  listMemberOrders,
  listMemberSubscriptions,
  listMemberUpcomingEvents,
  registerMemberForEvent,
} from '../../domain/member/member-account.ts';
import { ProblemError } from '../../errors/problem-error.ts';
import type { AppContext } from '../../http/context.ts';
import { sendAreaPage } from '../shared/page-kit.ts';
import { allPages, learnPath, notFound, plausibleId } from './access.ts';
import type { LearnEnv, LearnHandler } from './area.ts';
import { eventsPage, ordersPage, subscriptionPage } from './views.ts';

/** Why a registration change did not happen, in words. */
const EVENT_ERRORS: Record<string, string> = {
  event_full: 'This event is full.',
  event_canceled: 'This event was canceled.',
  event_ended: 'This event has already ended.',
  not_registered: 'You are not registered for this event.',
};

/** The member's orders. */
const orders =
  (ctx: AppContext): LearnHandler =>
  async (c) => {
    const learner = c.var.learner;
    const list = await allPages((page) => listMemberOrders(ctx.db, learner.scope, page));
    return sendAreaPage(c, 200, `Orders · ${learner.school.name}`, ordersPage(learner, list));
  };

/** The school's upcoming scheduled events (members-only ones included) and the member's seats. */
const events =
  (ctx: AppContext): LearnHandler =>
  async (c) => {
    const learner = c.var.learner;
    const upcoming = await allPages((page) => listMemberUpcomingEvents(ctx.db, learner.scope, page));
    const registrations = await allPages((page) => listMemberEventRegistrations(ctx.db, learner.scope, page));
    const error = c.req.query('error');
    return sendAreaPage(
      c,
      200,
      `Events · ${learner.school.name}`,
      eventsPage(learner, upcoming, new Map(registrations.map((r) => [r.eventId, r])), {
        done: c.req.query('done'),
        error: error && Object.hasOwn(EVENT_ERRORS, error) ? EVENT_ERRORS[error] : undefined,
      }),
    );
  };

/**
 * Registers for an event or cancels the registration; a refusal the events page words (full,
 * canceled, ended, not registered) goes back there with it.
 */
const changeRegistration =
  (ctx: AppContext, action: 'register' | 'cancel'): LearnHandler =>
  async (c) => {
    const learner = c.var.learner;
    const id = c.req.param('eventId');
    if (!plausibleId(id)) throw notFound(learner.school);
    const back = learnPath(learner.school, '/events');
    try {
      if (action === 'register') await registerMemberForEvent(ctx.db, learner.scope, id);
      else await cancelMemberEventRegistration(ctx.db, learner.scope, id);
    } catch (err) {
      if (err instanceof ProblemError && Object.hasOwn(EVENT_ERRORS, err.code)) {
        return c.redirect(`${back}?error=${err.code}`, 303);
      }
      throw err;
    }
    return c.redirect(`${back}?done=${action === 'register' ? 'registered' : 'canceled'}`, 303);
  };

/** The member's subscriptions. */
const subscription =
  (ctx: AppContext): LearnHandler =>
  async (c) => {
    const learner = c.var.learner;
    const list = await allPages((page) => listMemberSubscriptions(ctx.db, learner.scope, page));
    return sendAreaPage(c, 200, `Subscription · ${learner.school.name}`, subscriptionPage(learner, list));
  };

/** Adds the member pages to the area. */
export function memberPageRoutes(ctx: AppContext, app: Hono<LearnEnv>): void {
  app.get('/orders', orders(ctx));
  app.get('/events', events(ctx));
  app.post('/events/:eventId/register', changeRegistration(ctx, 'register'));
  app.post('/events/:eventId/cancel', changeRegistration(ctx, 'cancel'));
  app.get('/subscription', subscription(ctx));
}
