import type { AdminOperation } from './define-operation.ts';
import { analyticsOperations } from './operations/analytics.ts';
import { auditOperations } from './operations/audit.ts';
import { commentFormOperations } from './operations/comments-forms.ts';
import { couponOperations } from './operations/coupons.ts';
import { courseOperations } from './operations/courses.ts';
import { curriculumOperations } from './operations/curriculum.ts';
import { digitalProductOperations } from './operations/digital-products.ts';
import { eventOperations } from './operations/events.ts';
import { lecturerOperations } from './operations/lecturers.ts';
import { memberLockOperations } from './operations/member-locks.ts';
import { memberOperations } from './operations/members.ts';
import { orderOperations } from './operations/orders.ts';
import { pageOperations } from './operations/pages.ts';
import { paymentOperations } from './operations/payments.ts';
import { refundOperations } from './operations/payments-refunds.ts';
import { planSubscriptionOperations } from './operations/plans-subscriptions.ts';
import { postOperations } from './operations/posts.ts';
import { schoolOperations } from './operations/school.ts';
import { storageOperations } from './operations/storage.ts';
import { studentOperations } from './operations/students.ts';
import { webhookOperations } from './operations/webhooks.ts';

/**
 * Every admin operation, in document order. The REST routes, `/openapi.json` and the MCP
 * operator tools are all generated from this one list (see define-operation.ts for the contract).
 */
export const adminOperations: readonly AdminOperation[] = [
  ...courseOperations,
  ...curriculumOperations,
  ...studentOperations,
  ...memberOperations,
  ...memberLockOperations,
  ...lecturerOperations,
  ...orderOperations,
  ...refundOperations,
  ...couponOperations,
  ...eventOperations,
  ...planSubscriptionOperations,
  ...digitalProductOperations,
  ...postOperations,
  ...commentFormOperations,
  ...pageOperations,
  ...schoolOperations,
  ...storageOperations,
  ...analyticsOperations,
  ...auditOperations,
  ...webhookOperations,
  ...paymentOperations,
];
