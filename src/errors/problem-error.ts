import { PROBLEM_CODES, type ProblemCode } from './problem-codes.ts';

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
  readonly code: ProblemCode;
  readonly title: string;
  readonly detail?: string;
  readonly errors?: readonly FieldError[];
  readonly headers?: Readonly<Record<string, string>>;

  constructor(status: number, code: ProblemCode, title: string, options: ProblemOptions = {}) {
    super(options.detail ?? title, { cause: options.cause });
    this.status = status;
    this.code = code;
    this.title = title;
    this.detail = options.detail;
    this.errors = options.errors;
    this.headers = options.headers;
  }
}

/** What a problem carries besides its code: public detail, field errors, headers, private cause. */
export interface ProblemOptions {
  detail?: string;
  errors?: readonly FieldError[];
  headers?: Record<string, string>;
  cause?: unknown;
}

/** A problem by its code, with the status and title PROBLEM_CODES gives it. */
export function problem(code: ProblemCode, options: ProblemOptions = {}): ProblemError {
  const { status, title } = PROBLEM_CODES[code];
  return new ProblemError(status, code, title, options);
}

/** Shorthands for the problems every surface raises. */
export const problems = {
  notFound: (detail = 'The requested resource does not exist.') => problem('not_found', { detail }),
  validation: (errors: readonly FieldError[], detail = 'The request is not valid.') =>
    problem('validation_failed', { detail, errors }),
  badRequest: (detail: string) => problem('bad_request', { detail }),
  forbidden: (detail: string, code: ProblemCode = 'forbidden') => problem(code, { detail }),
  payloadTooLarge: (limit: number) =>
    problem('payload_too_large', { detail: `The request body exceeds ${limit} bytes.` }),
  unsupportedMediaType: (expected: string) =>
    problem('unsupported_media_type', { detail: `The request body must be ${expected}.` }),
  preconditionFailed: (detail: string) => problem('precondition_failed', { detail }),
};
