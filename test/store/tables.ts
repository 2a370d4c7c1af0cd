import type { Database } from '../../src/store/schema.ts';

/**
 * Every table of the Database type, checked by the compiler: a table added to the type but not
 * here (or listed here but gone) fails `tsc`, so the migration test always covers the whole schema.
 */
const ALL = {
  users: true,
  schools: true,
  memberships: true,
  lecturers: true,
  appearance: true,
  stored_files: true,
  courses: true,
  course_lecturers: true,
  sections: true,
  lectures: true,
  enrollments: true,
  lecture_progress: true,
  orders: true,
  order_items: true,
  stripe_accounts: true,
  checkouts: true,
  order_payments: true,
  coupons: true,
  membership_plans: true,
  membership_plan_courses: true,
  subscriptions: true,
  digital_products: true,
  events: true,
  event_registrations: true,
  posts: true,
  comments: true,
  pages: true,
  forms: true,
  form_submissions: true,
  idempotency_keys: true,
  password_resets: true,
  invitations: true,
  oauth_clients: true,
  oauth_grants: true,
  oauth_codes: true,
  oauth_tokens: true,
  signing_keys: true,
  sessions: true,
  session_flashes: true,
  domain_events: true,
  webhook_endpoints: true,
  webhook_deliveries: true,
  webhook_attempts: true,
  event_sweeps: true,
} satisfies Record<keyof Database, true>;

export const TABLES = Object.keys(ALL) as Array<keyof Database>;
