import type { Order, OrderItem } from '../domain/commerce/orders.ts';
import type { MemberSubscription } from '../domain/commerce/subscriptions.ts';
import type { EventRegistration } from '../domain/community/event-registrations.ts';
import type { Event } from '../domain/community/events.ts';
import { eventOfRegistration } from '../domain/member/member-account.ts';
import type { AccountContext } from './context.ts';

const money = (amount: number, currency: string) => ({ amount, currency });
const upper = (value: string) => value.toUpperCase();

type ItemNode = OrderItem & { readonly currency: string };
type PlanNode = MemberSubscription['plan'];

/** Resolvers of orders, event registrations and subscriptions. */
export const commerceResolvers = {
  Order: {
    status: (o: Order) => upper(o.status),
    subtotal: (o: Order) => money(o.subtotalAmount, o.currency),
    discount: (o: Order) => money(o.discountAmount, o.currency),
    total: (o: Order) => money(o.totalAmount, o.currency),
    refunded: (o: Order) => money(o.refundedAmount, o.currency),
    items: (o: Order): ItemNode[] => o.items.map((item) => ({ ...item, currency: o.currency })),
  },
  OrderItem: {
    productType: (i: ItemNode) => upper(i.productType),
    unitPrice: (i: ItemNode) => money(i.unitAmount, i.currency),
    total: (i: ItemNode) => money(i.totalAmount, i.currency),
  },
  EventRegistration: {
    status: (r: EventRegistration) => upper(r.status),
    event: async (r: EventRegistration, _: unknown, ctx: AccountContext): Promise<Event> => {
      const event = await ctx.loaders.events.load(r.eventId);
      if (!event) throw new Error(`event ${r.eventId} of registration ${r.id} is missing`);
      return eventOfRegistration(r, event);
    },
  },
  Event: {
    status: (e: Event) => upper(e.status),
  },
  MembershipSubscription: {
    status: (s: MemberSubscription) => upper(s.status),
  },
  MembershipPlan: {
    interval: (p: PlanNode) => upper(p.interval),
    price: (p: PlanNode) => money(p.priceAmount, p.currency),
  },
};
