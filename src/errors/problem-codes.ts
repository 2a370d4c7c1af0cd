/**
 * Every stable `code` a problem document (RFC 9457) of this service carries, with the HTTP
 * status and title that go with it: written once here, so a code is never sent with a retyped
 * title or a second status. Clients branch on `code`; the title is the status's reason phrase.
 */
export const PROBLEM_CODES = {
  // Generic, one per status.
  bad_request: { status: 400, title: 'Bad Request' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  forbidden: { status: 403, title: 'Forbidden' },
  not_found: { status: 404, title: 'Not Found' },
  method_not_allowed: { status: 405, title: 'Method Not Allowed' },
  conflict: { status: 409, title: 'Conflict' },
  precondition_failed: { status: 412, title: 'Precondition Failed' },
  payload_too_large: { status: 413, title: 'Payload Too Large' },
  unsupported_media_type: { status: 415, title: 'Unsupported Media Type' },
  validation_failed: { status: 422, title: 'Validation Failed' },
  rate_limited: { status: 429, title: 'Too Many Requests' },
  internal_error: { status: 500, title: 'Internal Server Error' },
  unavailable: { status: 503, title: 'Service Unavailable' },
  // The SMTP server refused or could not be reached (the change itself was kept).
  mail_failed: { status: 502, title: 'Bad Gateway' },
  // Requests the protocol refuses.
  malformed_json: { status: 400, title: 'Bad Request' },
  invalid_text: { status: 400, title: 'Bad Request' },
  malformed_multipart: { status: 400, title: 'Bad Request' },
  invalid_cursor: { status: 400, title: 'Bad Request' },
  invalid_idempotency_key: { status: 400, title: 'Bad Request' },
  idempotency_key_in_progress: { status: 409, title: 'Conflict' },
  idempotency_key_reused: { status: 422, title: 'Unprocessable Content' },
  quiz_not_passed: { status: 422, title: 'Unprocessable Content' },
  unsupported_file_type: { status: 415, title: 'Unsupported Media Type' },
  content_type_mismatch: { status: 415, title: 'Unsupported Media Type' },
  // Tokens and the one authorization decision (resource/authorization.ts).
  invalid_token: { status: 401, title: 'Unauthorized' },
  wrong_audience: { status: 403, title: 'Forbidden' },
  not_an_operator: { status: 403, title: 'Forbidden' },
  insufficient_scope: { status: 403, title: 'Forbidden' },
  owner_required: { status: 403, title: 'Forbidden' },
  unlock_not_allowed: { status: 403, title: 'Forbidden' },
  not_enrolled: { status: 403, title: 'Forbidden' },
  access_expired: { status: 403, title: 'Forbidden' },
  lecture_not_found: { status: 404, title: 'Not Found' },
  // State the request collides with.
  slug_taken: { status: 409, title: 'Conflict' },
  code_taken: { status: 409, title: 'Conflict' },
  email_taken: { status: 409, title: 'Conflict' },
  subdomain_taken: { status: 409, title: 'Conflict' },
  lecturer_exists: { status: 409, title: 'Conflict' },
  already_member: { status: 409, title: 'Conflict' },
  not_a_member: { status: 409, title: 'Conflict' },
  last_owner: { status: 409, title: 'Conflict' },
  invitation_pending: { status: 409, title: 'Conflict' },
  invitation_closed: { status: 409, title: 'Conflict' },
  already_enrolled: { status: 409, title: 'Conflict' },
  already_canceled: { status: 409, title: 'Conflict' },
  no_period_end: { status: 409, title: 'Conflict' },
  not_registered: { status: 409, title: 'Conflict' },
  event_canceled: { status: 409, title: 'Conflict' },
  event_ended: { status: 409, title: 'Conflict' },
  event_full: { status: 409, title: 'Conflict' },
  endpoint_disabled: { status: 409, title: 'Conflict' },
  too_many_endpoints: { status: 409, title: 'Conflict' },
  // Payments through the school's Stripe account (docs/payments.md).
  stripe_key_refused: { status: 422, title: 'Unprocessable Content' },
  stripe_not_connected: { status: 409, title: 'Conflict' },
  stripe_failed: { status: 502, title: 'Bad Gateway' },
  not_refundable: { status: 409, title: 'Conflict' },
} as const satisfies Record<string, { readonly status: number; readonly title: string }>;

/** A stable problem code: a key of PROBLEM_CODES. */
export type ProblemCode = keyof typeof PROBLEM_CODES;
