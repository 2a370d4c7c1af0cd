/** A school's connected Stripe account; both keys sealed (crypto/secret-box.ts). */
interface StripeAccountsTable {
  school_id: string;
  account_id: string;
  livemode: number;
  secret_key: string;
  webhook_secret: string;
  created_at: string;
  updated_at: string;
}

/** A pending order: its id is the order's id once paid. */
export interface CheckoutsTable {
  id: string;
  school_id: string;
  user_id: string;
  product_type: 'course';
  product_id: string;
  title: string;
  currency: string;
  subtotal_amount: number;
  discount_amount: number;
  total_amount: number;
  coupon_id: string | null;
  status: 'open' | 'completed' | 'expired';
  session_id: string | null;
  session_url: string | null;
  expires_at: string;
  created_at: string;
  updated_at: string;
}

/** How a paid order was paid through Stripe. */
interface OrderPaymentsTable {
  order_id: string;
  school_id: string;
  session_id: string;
  payment_intent_id: string | null;
  created_at: string;
}

/** The payment tables, as the store's Database type includes them. */
export interface PaymentTables {
  stripe_accounts: StripeAccountsTable;
  checkouts: CheckoutsTable;
  order_payments: OrderPaymentsTable;
}
