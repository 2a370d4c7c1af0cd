/**
 * `/admin/<school>/orders` and `/admin/<school>/orders/<orderId>`: the school's orders, read
 * through the admin API's `orders.list` and `orders.get` (runForConsole), with the list's
 * filters as a GET form. Orders are read only on every surface, so these pages change nothing.
 */
import { Hono } from 'hono';
import { ProblemError } from '../../errors/problem-error.ts';
import { sendAreaPage } from '../shared/page-kit.ts';
import { PageRefusal } from '../shared/refusal.ts';
import { addDays, dayStart, parseDay } from '../shared/school-format.ts';
import { type Area, areaPath } from './area.ts';
import { type ConsoleContext, type ConsoleEnv, operators } from './console-env.ts';
import { runForConsole } from './console-kit.ts';
import { type OrderFigures, type OrdersForm, orderPage, ordersPage } from './orders-views.ts';

const PAGE_SIZE = 20;
const DATE_HINT = 'Enter a date as year-month-day, for example 2026-03-31.';
const FIELDS = ['status', 'email', 'from', 'to'] as const;

/** The form's errors a refusal of `orders.list` names (`query.email`…); the rest is the page's. */
function filterErrors(err: ProblemError): { errors: OrdersForm['errors']; error?: string } {
  const errors: Record<string, string> = {};
  let error: string | undefined;
  for (const e of err.errors ?? []) {
    const field = e.field.replace(/^query\./, '');
    if (field === 'status') errors.status ??= 'Choose one of the listed statuses.';
    else if (field === 'email') errors.email ??= `The email ${e.message}.`;
    else if (field === 'from' || field === 'to') errors[field] ??= DATE_HINT;
    else error ??= 'That page of orders does not exist: start again from the first page.';
  }
  if (!err.errors?.length) {
    error =
      err.code === 'invalid_cursor'
        ? 'That page of orders does not exist: start again from the first page.'
        : (err.detail ?? err.title);
  }
  return { errors, error };
}

const ordersPath = (area: Area, query?: URLSearchParams) =>
  areaPath(area.school.id, `/orders${query && query.size > 0 ? `?${query}` : ''}`);

function list(
  c: ConsoleContext,
  status: number,
  form: OrdersForm,
  orders: OrderFigures[],
  paging = { next: null as string | null, first: null as string | null },
  error?: string,
): Promise<Response> {
  const { area } = c.var;
  return sendAreaPage(
    c,
    status,
    `${area.school.name} · Orders`,
    ordersPage(area, form, orders, paging, error),
  );
}

/** The orders with the filters of the query, a page at a time. */
async function listOrders(c: ConsoleContext): Promise<Response> {
  const { area, app } = c.var;
  const typed = (name: string) => (c.req.query(name) ?? '').trim().slice(0, 320);
  const values = { status: typed('status'), email: typed('email'), from: typed('from'), to: typed('to') };
  const from = values.from ? parseDay(values.from) : undefined;
  const to = values.to ? parseDay(values.to) : undefined;
  const dateErrors = {
    from: values.from && !from ? DATE_HINT : undefined,
    to: values.to && !to ? DATE_HINT : undefined,
  };
  if (dateErrors.from || dateErrors.to) return list(c, 400, { ...values, errors: dateErrors }, []);
  // The filters a "Next page" link carries, as typed.
  const kept = new URLSearchParams();
  for (const name of FIELDS) if (values[name]) kept.set(name, values[name]);
  const cursor = c.req.query('cursor');
  const query: Record<string, string> = { limit: String(PAGE_SIZE) };
  if (values.status) query.status = values.status;
  if (values.email) query.email = values.email;
  if (from) query.from = dayStart(area.school, from);
  if (to) query.to = dayStart(area.school, addDays(to, 1));
  if (cursor) query.cursor = cursor;
  try {
    const page = (await runForConsole(app, area, 'orders.list', { query })).body as {
      data: OrderFigures[];
      next_cursor: string | null;
    };
    const next = page.next_cursor ? new URLSearchParams([...kept, ['cursor', page.next_cursor]]) : null;
    return list(c, 200, { ...values, errors: {} }, page.data, {
      next: next ? ordersPath(area, next) : null,
      first: cursor ? ordersPath(area, kept) : null,
    });
  } catch (err) {
    if (!(err instanceof ProblemError) || err.status >= 500) throw err;
    const { errors, error } = filterErrors(err);
    return list(c, err.status, { ...values, errors }, [], undefined, error);
  }
}

/** One order; an id of another school, an unknown id and one that cannot be an id: the same 404. */
async function showOrder(c: ConsoleContext): Promise<Response> {
  const { area, app } = c.var;
  const params = { order_id: c.req.param('order') ?? '' };
  const order = await runForConsole(app, area, 'orders.get', { params }).then(
    (r) => r.body as OrderFigures,
    (err: unknown) => {
      if (!(err instanceof ProblemError) || err.status >= 500) throw err;
      throw new PageRefusal(404, 'Order not found', 'This school has no such order.', {
        links: [{ href: ordersPath(area), label: 'Back to Orders' }],
      });
    },
  );
  return sendAreaPage(c, 200, `Order ${order.number} · ${area.school.name}`, orderPage(area, order));
}

/** The orders pages. */
export function orderRoutes(): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  app.get('/:school/orders', operators, listOrders);
  app.get('/:school/orders/:order', operators, showOrder);
  return app;
}
