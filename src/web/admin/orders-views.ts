/** The Orders pages: the school's orders with filters and paging, and one order's detail. */
import { html } from 'hono/html';
import { ORDER_STATUSES } from '../../domain/commerce/orders.ts';
import type { School } from '../../domain/school/schools.ts';
import type { Html } from '../layout.ts';
import { notice } from '../shared/page-kit.ts';
import { count, money, timeOf } from '../shared/school-format.ts';
import { type Area, areaNav, areaPath } from './area.ts';

type OrderStatus = (typeof ORDER_STATUSES)[number];

/** An order as `orders.list` and `orders.get` answer (amounts in minor units of `currency`). */
export interface OrderFigures {
  readonly id: string;
  readonly number: string;
  readonly user: { readonly name: string; readonly email: string };
  readonly status: OrderStatus;
  readonly currency: string;
  readonly subtotal_amount: number;
  readonly discount_amount: number;
  readonly total_amount: number;
  readonly refunded_amount: number;
  readonly coupon_code: string | null;
  readonly items: readonly {
    readonly id: string;
    readonly product_type: string;
    readonly title: string;
    readonly quantity: number;
    readonly unit_amount: number;
    readonly total_amount: number;
  }[];
  readonly created_at: string;
  readonly updated_at: string;
}

/** An order's status in words. */
const STATUS_WORDS: Record<OrderStatus, string> = {
  paid: 'Paid',
  refunded: 'Refunded',
  partially_refunded: 'Partially refunded',
  failed: 'Failed',
};

const PRODUCT_WORDS: Record<string, string> = {
  course: 'Course',
  digital_product: 'Digital product',
  membership_plan: 'Membership plan',
  event: 'Event',
};

/** The filters as typed (dates YYYY-MM-DD in the school's zone) and each field's error. */
export interface OrdersForm {
  readonly status: string;
  readonly email: string;
  readonly from: string;
  readonly to: string;
  readonly errors: Partial<Record<'status' | 'email' | 'from' | 'to', string>>;
}

const ordersPath = (area: Area, rest = '') => areaPath(area.school.id, `/orders${rest}`);

/** The path of an order's page. */
const orderPath = (area: Area, orderId: string) => ordersPath(area, `/${encodeURIComponent(orderId)}`);

function fieldAttrs(form: OrdersForm, field: keyof OrdersForm['errors'], hint?: string): Html {
  const error = form.errors[field];
  const ids = [hint, error ? `${field}-error` : undefined].filter(Boolean).join(' ');
  return html`${ids ? html` aria-describedby="${ids}"` : ''}${error ? html` aria-invalid="true"` : ''}`;
}

function fieldError(form: OrdersForm, field: keyof OrdersForm['errors']): Html | '' {
  const error = form.errors[field];
  return error ? html`<p class="field-error" id="${field}-error">${error}</p>` : '';
}

function filterForm(area: Area, form: OrdersForm): Html {
  return html`<form method="get" action="${ordersPath(area)}" aria-labelledby="filter-heading">
<h2 id="filter-heading">Filter orders</h2>
<div class="fields">
<div><label for="status">Status</label>
<select id="status" name="status"${fieldAttrs(form, 'status')}><option value="">Every status</option>${ORDER_STATUSES.map(
    (s) => html`<option value="${s}"${s === form.status ? html` selected` : ''}>${STATUS_WORDS[s]}</option>`,
  )}</select>${fieldError(form, 'status')}</div>
<div><label for="email">Buyer’s email</label>
<input id="email" name="email" type="email" value="${form.email}" maxlength="320" autocomplete="off"${fieldAttrs(form, 'email', 'email-hint')}>
<p class="hint" id="email-hint">The whole address, as the buyer signed up with it.</p>${fieldError(form, 'email')}</div>
</div>
<div class="fields">
<div><label for="from">Placed from</label>
<input id="from" name="from" type="date" value="${form.from}"${fieldAttrs(form, 'from', 'dates-hint')}>${fieldError(form, 'from')}</div>
<div><label for="to">Placed to</label>
<input id="to" name="to" type="date" value="${form.to}"${fieldAttrs(form, 'to', 'dates-hint')}>${fieldError(form, 'to')}</div>
</div>
<p class="hint" id="dates-hint">Days in the school’s time zone (${area.school.timezone}), both included.</p>
<div class="actions start"><button class="primary" type="submit">Show orders</button>
<a href="${ordersPath(area)}">Clear filters</a></div>
</form>`;
}

function itemTitles(order: OrderFigures): Html {
  if (order.items.length === 1) return html`${order.items[0].title}`;
  return html`<ul>${order.items.map((i) => html`<li>${i.title}${i.quantity > 1 ? ` × ${i.quantity}` : ''}</li>`)}</ul>`;
}

function refunded(school: School, order: OrderFigures): Html | string {
  return order.refunded_amount > 0
    ? money(school, order.refunded_amount, order.currency)
    : html`<span class="muted">None</span>`;
}

function orderRow(area: Area, order: OrderFigures): Html {
  const school = area.school;
  return html`<tr><th scope="row"><a href="${orderPath(area, order.id)}">${order.number}</a></th><td data-label="Placed">${timeOf(school, order.created_at)}</td><td data-label="Buyer">${order.user.name}<br><span class="muted">${order.user.email}</span></td><td data-label="Items">${itemTitles(order)}</td><td data-label="Amount">${money(school, order.total_amount, order.currency)}</td><td data-label="Coupon">${order.coupon_code ?? html`<span class="muted">None</span>`}</td><td data-label="Status">${STATUS_WORDS[order.status]}</td><td data-label="Refunded">${refunded(school, order)}</td></tr>`;
}

/** The orders list: filters, one page of orders (newest first) and the way to the next page. */
export function ordersPage(
  area: Area,
  form: OrdersForm,
  orders: readonly OrderFigures[],
  paging: { next: string | null; first: string | null },
  error?: string,
): Html {
  const filtered = form.status || form.email || form.from || form.to;
  const refused = error || Object.values(form.errors).some(Boolean);
  return html`${areaNav(area, 'orders')}
<h1>${area.school.name} · Orders</h1>
<p>What people bought at your school, newest first. Orders come from your payment provider and cannot be changed here.</p>
${error ? notice('error', error) : ''}
${filterForm(area, form)}
<h2 id="orders-heading">${filtered ? 'Matching orders' : 'All orders'}</h2>
${
  orders.length === 0
    ? html`<p class="muted" id="no-orders">${refused ? 'No orders are shown until the filters are fixed.' : filtered ? 'No orders match these filters.' : 'No orders yet.'}</p>`
    : html`<table class="stack" id="orders" aria-labelledby="orders-heading"><thead><tr><th scope="col">Order</th><th scope="col">Placed</th><th scope="col">Buyer</th><th scope="col">Items</th><th scope="col">Amount</th><th scope="col">Coupon</th><th scope="col">Status</th><th scope="col">Refunded</th></tr></thead><tbody>
${orders.map((o) => orderRow(area, o))}</tbody></table>
<p class="muted">${count(area.school, orders.length)} ${orders.length === 1 ? 'order' : 'orders'} on this page.</p>`
}
${
  paging.next || paging.first
    ? html`<nav aria-label="Pages of orders"><ul class="quick">${paging.first ? html`<li><a href="${paging.first}">First page</a></li>` : ''}${paging.next ? html`<li><a href="${paging.next}" rel="next">Next page</a></li>` : ''}</ul></nav>`
    : ''
}`;
}

/** One order: what was bought, the amounts, the coupon, refunds and status. */
export function orderPage(area: Area, order: OrderFigures): Html {
  const school = area.school;
  const say = (amount: number) => money(school, amount, order.currency);
  return html`${areaNav(area, 'orders')}
<p><a href="${ordersPath(area)}">All orders</a></p>
<h1>Order ${order.number}</h1>
<dl id="order-facts">
<dt>Status</dt><dd id="order-status">${STATUS_WORDS[order.status]}</dd>
<dt>Placed</dt><dd>${timeOf(school, order.created_at)}</dd>
<dt>Buyer</dt><dd>${order.user.name}<br><span class="muted">${order.user.email}</span></dd>
<dt>Coupon</dt><dd>${order.coupon_code ?? html`<span class="muted">None</span>`}</dd>
</dl>
<h2 id="items-heading">Items</h2>
<table class="stack" id="order-items" aria-labelledby="items-heading">
<thead><tr><th scope="col">Item</th><th scope="col">Kind</th><th scope="col">Quantity</th><th scope="col">Price each</th><th scope="col">Total</th></tr></thead><tbody>
${order.items.map(
  (i) =>
    html`<tr><th scope="row">${i.title}</th><td data-label="Kind">${PRODUCT_WORDS[i.product_type] ?? i.product_type}</td><td data-label="Quantity">${count(school, i.quantity)}</td><td data-label="Price each">${say(i.unit_amount)}</td><td data-label="Total">${say(i.total_amount)}</td></tr>`,
)}</tbody></table>
<h2 id="amounts-heading">Amounts</h2>
<table id="order-amounts" aria-labelledby="amounts-heading"><tbody>
<tr><th scope="row">Items</th><td>${say(order.subtotal_amount)}</td></tr>
<tr><th scope="row">Discount${order.coupon_code ? ` (coupon ${order.coupon_code})` : ''}</th><td>${order.discount_amount > 0 ? `−\u2060${say(order.discount_amount)}` : say(0)}</td></tr>
<tr><th scope="row">Paid</th><td>${say(order.total_amount)}</td></tr>
<tr><th scope="row">Refunded</th><td>${say(order.refunded_amount)}</td></tr>
<tr><th scope="row">Kept</th><td>${say(order.total_amount - order.refunded_amount)}</td></tr>
</tbody></table>
<h2 id="refunds">Refunds</h2>
${
  order.refunded_amount > 0
    ? html`<p id="refund-said">${say(order.refunded_amount)} of ${say(order.total_amount)} was refunded${order.status === 'refunded' ? ' (all of it)' : ''}. The order was last updated ${timeOf(school, order.updated_at)}.</p>`
    : order.status === 'failed'
      ? html`<p id="refund-said">The payment failed: nothing was paid, so there is nothing to refund.</p>`
      : html`<p id="refund-said">No refunds.</p>`
}
<p class="muted">Refunds are made with your payment provider; it reports them to Lectern.</p>`;
}
