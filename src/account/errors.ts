import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import type { Logger } from 'pino';
import { ProblemError } from '../errors/problem-error.ts';

/** Codes of request errors (nothing executed): the GraphQL-over-HTTP "request error" family. */
export type RequestErrorCode =
  | 'BAD_REQUEST'
  | 'GRAPHQL_PARSE_FAILED'
  | 'GRAPHQL_VALIDATION_FAILED'
  | 'QUERY_TOO_LARGE'
  | 'DEPTH_LIMIT_EXCEEDED'
  | 'COST_LIMIT_EXCEEDED'
  | 'BAD_USER_INPUT'
  | 'OPERATION_NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'PAYLOAD_TOO_LARGE';

// Domain problem codes whose GraphQL name differs from the upper-cased code.
const PROBLEM_CODES: Record<string, string> = {
  validation_failed: 'BAD_USER_INPUT',
  invalid_cursor: 'BAD_USER_INPUT',
  lecture_not_found: 'NOT_FOUND',
};

/**
 * A domain ProblemError as a GraphQL error: its stable code upper-cased (`event_full` →
 * `EVENT_FULL`), its public detail as the message, field errors under `extensions.fields`.
 */
function fromProblem(p: ProblemError): GraphQLFormattedError['extensions'] {
  const code = PROBLEM_CODES[p.code] ?? p.code.toUpperCase();
  return p.errors ? { code, fields: p.errors } : { code };
}

/**
 * Formats execution errors for the response: coded GraphQL errors and 4xx domain problems keep
 * their message; anything else is logged and masked (no stack, no internals).
 */
export function formatExecutionError(
  error: GraphQLError,
  logger: Logger,
  requestId: string | undefined,
): GraphQLFormattedError {
  const original = error.originalError;
  const base: {
    message: string;
    locations?: GraphQLFormattedError['locations'];
    path?: (string | number)[];
  } = { message: error.message };
  if (error.locations) base.locations = error.locations;
  if (error.path) base.path = error.path as (string | number)[];
  if (!original || original instanceof GraphQLError) {
    // Raised by graphql-js itself (e.g. variable coercion) or by us with a code.
    return { ...base, extensions: { code: 'BAD_USER_INPUT', ...error.extensions } };
  }
  if (original instanceof ProblemError && original.status < 500) {
    return { ...base, message: original.detail ?? original.title, extensions: fromProblem(original) };
  }
  logger.error({ err: original, path: error.path, requestId }, 'account graphql resolver error');
  return {
    ...base,
    message: 'Unexpected error.',
    extensions: { code: 'INTERNAL_SERVER_ERROR', ...(requestId ? { requestId } : {}) },
  };
}

/** A request error (no execution) in the formatted shape. */
export function requestError(
  message: string,
  code: RequestErrorCode,
  extensions: Record<string, unknown> = {},
): GraphQLFormattedError {
  return { message, extensions: { code, ...extensions } };
}
