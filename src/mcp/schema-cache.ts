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

/**
 * A Standard Schema validated by `validate` alone, listed with the JSON Schema `build` returns,
 * built on first use and then kept (one admin operation takes milliseconds to convert; the whole
 * catalogue at start-up would delay boot, and most processes never list every tool).
 */
export function lazyJsonSchema(
  validate: (value: unknown) => unknown,
  build: () => Record<string, unknown>,
): JsonCarryingSchema {
  let json: Record<string, unknown> | undefined;
  const get = () => {
    json ??= build();
    return json;
  };
  return {
    '~standard': { version: 1, vendor: 'lectern', validate, jsonSchema: { input: get, output: get } },
  };
}
