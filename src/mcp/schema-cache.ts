import { fromJsonSchema } from '@modelcontextprotocol/server';
import { unknownKeysMessage } from './tool-input.ts';

/** The Standard Schema shape the SDK takes for tool input and output (StandardJSONSchemaV1). */
export interface JsonCarryingSchema {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => unknown;
    readonly jsonSchema: {
      readonly input: (options?: unknown) => Record<string, unknown>;
      readonly output: (options?: unknown) => Record<string, unknown>;
    };
  };
}

interface StandardWithJson {
  readonly '~standard': {
    readonly validate: (value: unknown) => unknown;
    readonly jsonSchema?: {
      readonly input: (o: unknown) => unknown;
      readonly output: (o: unknown) => unknown;
    };
  };
}

const TARGET = { target: 'draft-2020-12' };

/**
 * Wraps a zod (or any Standard Schema) so its JSON Schema is computed once per process, not
 * once per request: the endpoint builds a fresh MCP server per request (stateless), and the SDK
 * converts schemas per server instance. Validation stays the schema's own.
 */
export function cachedJsonSchema(schema: StandardWithJson): JsonCarryingSchema {
  const std = schema['~standard'];
  let input: Record<string, unknown> | undefined;
  let output: Record<string, unknown> | undefined;
  return {
    '~standard': {
      version: 1,
      vendor: 'lectern',
      validate: (value) => std.validate(value),
      jsonSchema: {
        input: () => {
          input ??= std.jsonSchema?.input(TARGET) as Record<string, unknown>;
          return input;
        },
        output: () => {
          output ??= std.jsonSchema?.output(TARGET) as Record<string, unknown>;
          return output;
        },
      },
    },
  };
}

type Issues = { issues?: ReadonlyArray<{ message: string }> };

/**
 * For a closed object schema and an argument object with keys it does not list: a rewrite of the
 * validator's answer naming those keys and the accepted ones, as zod tool inputs do
 * (tool-input.ts), instead of "data must NOT have additional properties".
 */
function unknownKeysOf(json: Record<string, unknown>, value: unknown) {
  if (json.additionalProperties !== false || typeof value !== 'object' || value === null) return undefined;
  const accepted = Object.keys((json.properties as Record<string, unknown> | undefined) ?? {});
  const unknown = Object.keys(value).filter((k) => !accepted.includes(k));
  if (unknown.length === 0) return undefined;
  return (result: unknown) => {
    const others = ((result as Issues).issues ?? []).filter(
      (i) => i.message !== 'data must NOT have additional properties',
    );
    return { issues: [{ message: unknownKeysMessage(unknown, accepted) }, ...others] };
  };
}

/**
 * A JSON Schema, built and compiled for the SDK's validator on first use rather than at start-up
 * (one admin operation takes milliseconds; the whole catalogue would delay boot by seconds).
 */
export function lazyJsonSchema(build: () => Record<string, unknown>): JsonCarryingSchema {
  let json: Record<string, unknown> | undefined;
  let compiled: ReturnType<typeof fromJsonSchema> | undefined;
  const get = () => {
    json ??= build();
    return json;
  };
  return {
    '~standard': {
      version: 1,
      vendor: 'lectern',
      validate: (value) => {
        compiled ??= fromJsonSchema(get());
        const result = compiled['~standard'].validate(value);
        const unknownKeys = unknownKeysOf(get(), value);
        if (!unknownKeys) return result;
        return result instanceof Promise ? result.then(unknownKeys) : unknownKeys(result);
      },
      jsonSchema: { input: get, output: get },
    },
  };
}
