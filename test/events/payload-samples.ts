import type { z } from 'zod';
import type { EventType } from '../../src/events/catalogue.ts';
import { EVENT_DATA_SCHEMAS, type EventDataOf } from '../../src/events/payloads.ts';

/** The parts of a zod definition a sample needs (zod keeps them on `_zod.def`). */
interface Def {
  type: string;
  format?: string;
}

/** The plainest value a field's schema accepts: null where allowed, else 0, false, [], an id or an instant. */
function sampleValue(schema: z.ZodType): unknown {
  const def = schema._zod.def as Def;
  switch (def.type) {
    case 'nullable':
      return null;
    case 'readonly':
    case 'array':
      return [];
    case 'boolean':
      return false;
    case 'number':
      return 0;
    case 'string':
      return def.format === 'datetime' ? '2026-03-01T09:00:00.000Z' : 'x_1';
    default:
      throw new Error(`no sample for a ${def.type} field`);
  }
}

/**
 * A payload its type's schema accepts, derived from the schema itself: for tests that need an
 * event of every type (the fan-out trigger, the schema checks) without the action behind it.
 */
export function sampleEventData<T extends EventType>(type: T): EventDataOf<T> {
  const shape: Record<string, z.ZodType> = EVENT_DATA_SCHEMAS[type].shape;
  return Object.fromEntries(
    Object.entries(shape).map(([key, field]) => [key, sampleValue(field)]),
  ) as EventDataOf<T>;
}
