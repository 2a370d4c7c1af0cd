import type { Context } from 'hono';
import { OAuthError } from '../errors/oauth-error.ts';

/** A parsed form whose single-valued parameters were checked for duplicates. */
export interface FormParams {
  /** The one value of a parameter, or undefined when absent. Empty values count as absent. */
  get(name: string): string | undefined;
  /** Every value of a parameter that may repeat (e.g. `resource`, RFC 8707 §2). */
  all(name: string): string[];
}

/** True when the request's media type is `application/x-www-form-urlencoded`. */
export function isFormRequest(c: Context): boolean {
  const type = c.req.header('content-type')?.split(';')[0].trim().toLowerCase();
  return type === 'application/x-www-form-urlencoded';
}

/**
 * Parameters from a query string or form body. RFC 6749 §3.1 / §3.2: parameters must not be
 * included more than once, so a repeated one (other than those listed in `repeatable`) is
 * refused with `invalid_request`, naming it.
 */
export function parseParams(source: URLSearchParams, repeatable: readonly string[] = []): FormParams {
  const nul = firstNulParameter(source);
  if (nul !== undefined) {
    throw new OAuthError('invalid_request', `The parameter ${nul.slice(0, 50)} contains a NUL character.`);
  }
  const seen = new Set<string>();
  for (const key of source.keys()) {
    if (seen.has(key) && !repeatable.includes(key)) {
      throw new OAuthError('invalid_request', `The parameter ${key} was given more than once.`);
    }
    seen.add(key);
  }
  return {
    get: (name) => source.get(name) || undefined,
    all: (name) => source.getAll(name).filter(Boolean),
  };
}

/**
 * The name of the first parameter whose name or value holds U+0000, which no OAuth value may
 * contain and PostgreSQL text cannot store; undefined when there is none.
 */
export function firstNulParameter(source: URLSearchParams): string | undefined {
  for (const [key, value] of source) {
    if (key.includes('\u0000') || value.includes('\u0000')) return key.replaceAll('\u0000', '');
  }
  return undefined;
}

/**
 * Reads an `application/x-www-form-urlencoded` body (RFC 6749 §4.1.3 / §6, RFC 7009 §2.1,
 * RFC 7662 §2.1); any other content type is `invalid_request`.
 */
export async function readOAuthForm(c: Context, repeatable: readonly string[] = []): Promise<FormParams> {
  if (!isFormRequest(c)) {
    throw new OAuthError('invalid_request', 'The request body must be application/x-www-form-urlencoded.');
  }
  const text = await c.req.text();
  return parseParams(new URLSearchParams(text), repeatable);
}
