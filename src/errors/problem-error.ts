/** One field that failed validation, as reported in a problem's `errors` array. */
export interface FieldError {
  /** JSON pointer-ish path of the failing field, e.g. `body.title` or `query.limit`. */
  readonly field: string;
  readonly message: string;
}

/**
 * An RFC 9457 problem with a stable machine-readable `code`. `detail` is public; `cause` stays
 * private (logged, never sent).
 */
export class ProblemError extends Error {
  override name = 'ProblemError';
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly detail?: string;
  readonly errors?: readonly FieldError[];
  readonly headers?: Readonly<Record<string, string>>;

  constructor(
    status: number,
    code: string,
    title: string,
    options: {
      detail?: string;
      errors?: readonly FieldError[];
      headers?: Record<string, string>;
      cause?: unknown;
    } = {},
  ) {
    super(options.detail ?? title, { cause: options.cause });
    this.status = status;
    this.code = code;
    this.title = title;
    this.detail = options.detail;
    this.errors = options.errors;
    this.headers = options.headers;
  }
}

/** Shorthands for the problems every surface raises. */
export const problems = {
  notFound: (detail = 'The requested resource does not exist.') =>
    new ProblemError(404, 'not_found', 'Not Found', { detail }),
  validation: (errors: readonly FieldError[], detail = 'The request is not valid.') =>
    new ProblemError(422, 'validation_failed', 'Validation Failed', { detail, errors }),
  badRequest: (detail: string) => new ProblemError(400, 'bad_request', 'Bad Request', { detail }),
  forbidden: (detail: string, code = 'forbidden') => new ProblemError(403, code, 'Forbidden', { detail }),
  payloadTooLarge: (limit: number) =>
    new ProblemError(413, 'payload_too_large', 'Payload Too Large', {
      detail: `The request body exceeds ${limit} bytes.`,
    }),
  unsupportedMediaType: (expected: string) =>
    new ProblemError(415, 'unsupported_media_type', 'Unsupported Media Type', {
      detail: `The request body must be ${expected}.`,
    }),
  preconditionFailed: (detail: string) =>
    new ProblemError(412, 'precondition_failed', 'Precondition Failed', { detail }),
};
