import { PROBLEM_CODES, type ProblemCode } from './problem-codes.ts';

/** One field that failed validation, as reported in a problem's `errors` array. */
export interface FieldError {
  /** JSON pointer-ish path of the failing field, e.g. `body.title` or `query.limit`. */
  readonly field: string;
  readonly message: string;
}

/**
 * The rule a field broke, as zod states it: its issue code and bounds, so a surface words the
 * refusal itself (the console, in the school's language and money) without reading the English
 * message. `origin` is what was measured (`string`, `number`, `array`).
 */
export interface FieldRule {
  readonly code: string;
  readonly origin?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  /** Whether the bound itself is allowed (`>=` rather than `>`). */
  readonly inclusive?: boolean;
  /** The type expected (`number`, `int`, `boolean`, `array`…) of an `invalid_type`. */
  readonly expected?: string;
  /** The value was missing altogether. */
  readonly missing?: boolean;
  /** The allowed values of an `invalid_value`. */
  readonly values?: readonly string[];
  /** The format of an `invalid_format` (`email`, `datetime`, `url`, `regex`…). */
  readonly format?: string;
}

/**
 * The rules behind field errors, kept beside them for surfaces in this process (the console):
 * the wire format of a problem stays `field` and `message`.
 */
const fieldRules = new WeakMap<FieldError, FieldRule>();

/** A field error that carries the rule it broke. */
export function ruledFieldError(field: string, message: string, rule: FieldRule): FieldError {
  const error = { field, message };
  fieldRules.set(error, rule);
  return error;
}

/** The rule a field error broke, when it was a schema's (undefined for the domain's own checks). */
export function fieldRuleOf(error: FieldError): FieldRule | undefined {
  return fieldRules.get(error);
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
