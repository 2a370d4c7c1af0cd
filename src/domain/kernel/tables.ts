/**
 * Row shapes of the course platform's tables. Conventions, the same on SQLite and PostgreSQL:
 * ids are prefixed, time-sortable text; timestamps are ISO 8601 UTC text (they sort as text);
 * flags are integers 0/1; money is integer minor units beside an ISO 4217 currency; lists and
 * documents are JSON text.
 */
import type {
  CommentsTable,
  FormSubmissionsTable,
  FormsTable,
  PagesTable,
  PostsTable,
} from './community-tables.ts';

export interface UsersTable {
  id: string;
  email: string;
  name: string;
  password_hash: string | null;
  /**
   * Set while the email is unproven: the account was made through this school's invitation link
   * handed to the inviter (no SMTP), and is trusted at this school only.
   */
  unverified_school_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface SchoolsTable {
  id: string;
  name: string;
  subdomain: string;
  locale: string;
  timezone: string;
  currency: string;
  contact_email: string | null;
  /** JSON array of enabled beta feature keys, e.g. ["mcp_connections"]. */
  beta_features: string;
  /** 1 while visitors may sign up at the school's site (defaults to 1 on insert). */
  signup_open?: number;
  created_at: string;
  updated_at: string;
}

interface MembershipsTable {
  id: string;
  school_id: string;
  user_id: string;
  /** JSON array of roles: owner, admin, lecturer, student. */
  roles: string;
  status: 'active' | 'invited';
  invited_by_user_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface LecturersTable {
  id: string;
  school_id: string;
  user_id: string | null;
  name: string;
  headline: string | null;
  bio: string | null;
  avatar_url: string | null;
  created_at: string;
  updated_at: string;
}

export interface AppearanceTable {
  school_id: string;
  primary_color: string;
  accent_color: string;
  font: string;
  logo_file_id: string | null;
  updated_at: string;
}

export interface StoredFilesTable {
  id: string;
  school_id: string;
  filename: string;
  content_type: string;
  size_bytes: number;
  sha256: string;
  storage_key: string;
  created_at: string;
  /** Who uploaded it (null: before this was kept, or their account is gone). */
  uploaded_by?: string | null;
}

export interface CoursesTable {
  id: string;
  school_id: string;
  slug: string;
  title: string;
  description: string;
  status: 'draft' | 'published' | 'archived';
  price_amount: number;
  currency: string;
  image_url: string | null;
  /** The school's own checkout page of a paid course, or null. */
  checkout_url: string | null;
  published_at: string | null;
  created_at: string;
  updated_at: string;
}

interface CourseLecturersTable {
  course_id: string;
  lecturer_id: string;
  position: number;
}

export interface SectionsTable {
  id: string;
  school_id: string;
  course_id: string;
  title: string;
  position: number;
  created_at: string;
  updated_at: string;
}

export interface LecturesTable {
  id: string;
  school_id: string;
  course_id: string;
  section_id: string;
  title: string;
  type: 'video' | 'text' | 'quiz' | 'file';
  duration_seconds: number;
  is_free_preview: number;
  position: number;
  body: string | null;
  video_url: string | null;
  file_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface EnrollmentsTable {
  id: string;
  school_id: string;
  user_id: string;
  course_id: string;
  enrolled_at: string;
  /** Null means lifetime access. */
  expires_at: string | null;
  progress_percent: number;
  completed_at: string | null;
  last_lecture_id: string | null;
  last_position_seconds: number | null;
  last_watched_at: string | null;
  source: 'manual' | 'order' | 'membership_plan' | 'import';
  created_at: string;
  updated_at: string;
}

export interface LectureProgressTable {
  enrollment_id: string;
  lecture_id: string;
  position_seconds: number;
  completed_at: string | null;
  updated_at: string;
}

export interface OrdersTable {
  id: string;
  school_id: string;
  user_id: string;
  number: string;
  status: 'paid' | 'refunded' | 'partially_refunded' | 'failed';
  currency: string;
  subtotal_amount: number;
  discount_amount: number;
  total_amount: number;
  refunded_amount: number;
  coupon_id: string | null;
  coupon_code: string | null;
  created_at: string;
  updated_at: string;
}

export interface OrderItemsTable {
  id: string;
  order_id: string;
  product_type: 'course' | 'digital_product' | 'membership_plan' | 'event';
  product_id: string;
  title: string;
  quantity: number;
  unit_amount: number;
  total_amount: number;
}

export interface CouponsTable {
  id: string;
  school_id: string;
  code: string;
  kind: 'percent' | 'fixed';
  percent_off: number | null;
  amount_off: number | null;
  currency: string | null;
  max_redemptions: number | null;
  redemptions_count: number;
  expires_at: string | null;
  /** JSON array of {type, id}; null applies to every product. */
  applies_to: string | null;
  active: number;
  created_at: string;
  updated_at: string;
}

export interface MembershipPlansTable {
  id: string;
  school_id: string;
  name: string;
  description: string;
  interval: 'month' | 'year' | 'lifetime';
  price_amount: number;
  currency: string;
  status: 'active' | 'archived';
  created_at: string;
  updated_at: string;
}

interface MembershipPlanCoursesTable {
  plan_id: string;
  course_id: string;
}

export interface SubscriptionsTable {
  id: string;
  school_id: string;
  user_id: string;
  plan_id: string;
  status: 'trialing' | 'active' | 'past_due' | 'canceled';
  current_period_end: string | null;
  cancel_at_period_end: number;
  canceled_at: string | null;
  trial_ends_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface DigitalProductsTable {
  id: string;
  school_id: string;
  title: string;
  description: string;
  price_amount: number;
  currency: string;
  file_id: string | null;
  status: 'draft' | 'published' | 'archived';
  created_at: string;
  updated_at: string;
}

export interface EventsTable {
  id: string;
  school_id: string;
  title: string;
  description: string;
  starts_at: string;
  ends_at: string;
  capacity: number | null;
  online_url: string | null;
  location: string | null;
  visibility: 'public' | 'members';
  status: 'scheduled' | 'canceled';
  created_at: string;
  updated_at: string;
}

export interface EventRegistrationsTable {
  id: string;
  school_id: string;
  event_id: string;
  user_id: string;
  status: 'registered' | 'canceled' | 'attended';
  registered_at: string;
  canceled_at: string | null;
}

/** An invitation to join a school: single-use and expiring; only the token's hash is kept. */
export interface InvitationsTable {
  id: string;
  school_id: string;
  email: string;
  /** JSON array of the roles the person gets on accepting. */
  roles: string;
  token_hash: string;
  invited_by_user_id: string | null;
  expires_at: string;
  accepted_at: string | null;
  accepted_user_id: string | null;
  revoked_at: string | null;
  /** 1 when the link went to the invited mailbox (opening it proves the email). */
  emailed: number;
  /** JSON array of course ids the person is enrolled in on accepting. */
  course_ids: string;
  created_at: string;
  updated_at: string;
}

interface IdempotencyKeysTable {
  school_id: string;
  client_id: string;
  key: string;
  method: string;
  path: string;
  request_hash: string;
  response_status: number;
  response_body: string;
  created_at: string;
}

/** A one-time password-reset link: only its hash is kept; single-use and expiring. */
interface PasswordResetsTable {
  token_hash: string;
  user_id: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** Every table of the course platform's domain. */
export interface DomainTables {
  users: UsersTable;
  schools: SchoolsTable;
  memberships: MembershipsTable;
  lecturers: LecturersTable;
  appearance: AppearanceTable;
  stored_files: StoredFilesTable;
  courses: CoursesTable;
  course_lecturers: CourseLecturersTable;
  sections: SectionsTable;
  lectures: LecturesTable;
  enrollments: EnrollmentsTable;
  lecture_progress: LectureProgressTable;
  orders: OrdersTable;
  order_items: OrderItemsTable;
  coupons: CouponsTable;
  membership_plans: MembershipPlansTable;
  membership_plan_courses: MembershipPlanCoursesTable;
  subscriptions: SubscriptionsTable;
  digital_products: DigitalProductsTable;
  events: EventsTable;
  event_registrations: EventRegistrationsTable;
  posts: PostsTable;
  comments: CommentsTable;
  pages: PagesTable;
  forms: FormsTable;
  form_submissions: FormSubmissionsTable;
  idempotency_keys: IdempotencyKeysTable;
  password_resets: PasswordResetsTable;
  invitations: InvitationsTable;
}
