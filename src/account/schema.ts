import { readFileSync } from 'node:fs';
import {
  buildSchema,
  GraphQLError,
  type GraphQLFieldResolver,
  GraphQLScalarType,
  type GraphQLSchema,
  isObjectType,
  Kind,
  type ValueNode,
} from 'graphql';
import { MAX_AMOUNT, toIsoTimestamp } from '../domain/kernel/checks.ts';
import { connectionResolvers } from './connection.ts';
import { commerceResolvers } from './resolvers-commerce.ts';
import { courseResolvers } from './resolvers-courses.ts';
import { mutationResolvers } from './resolvers-mutations.ts';
import { viewerResolvers } from './resolvers-viewer.ts';

/** The Account API's SDL, as published at /account/graphql/schema.graphql. */
export const ACCOUNT_SDL = readFileSync(new URL('./schema.graphql', import.meta.url), 'utf8');

function badDateTime(): GraphQLError {
  return new GraphQLError('DateTime must be an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z.', {
    extensions: { code: 'BAD_USER_INPUT' },
  });
}

/** ISO 8601 UTC text, as stored; inputs are normalised to the same form. */
const DateTime = new GraphQLScalarType({
  name: 'DateTime',
  serialize(value) {
    // Stored timestamps are already ISO 8601 UTC (store/time.ts): passed through as they are.
    if (typeof value === 'string') return value;
    if (value instanceof Date) return value.toISOString();
    throw new TypeError('DateTime cannot represent a non-date value');
  },
  parseValue(value) {
    const iso = typeof value === 'string' ? toIsoTimestamp(value) : undefined;
    if (!iso) throw badDateTime();
    return iso;
  },
  parseLiteral(node: ValueNode) {
    const iso = node.kind === Kind.STRING ? toIsoTimestamp(node.value) : undefined;
    if (!iso) throw badDateTime();
    return iso;
  },
});

const isMinorUnits = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

function badMinorUnits(): GraphQLError {
  return new GraphQLError(`MinorUnits must be a whole number from 0 to ${MAX_AMOUNT}.`, {
    extensions: { code: 'BAD_USER_INPUT' },
  });
}

/** Money in minor units: a JSON number like Int, but up to MAX_AMOUNT (Int stops at 2^31 - 1). */
const MinorUnits = new GraphQLScalarType({
  name: 'MinorUnits',
  serialize(value) {
    if (isMinorUnits(value)) return value;
    throw new TypeError('MinorUnits cannot represent a non-integer or negative value');
  },
  parseValue(value) {
    if (!isMinorUnits(value) || value > MAX_AMOUNT) throw badMinorUnits();
    return value;
  },
  parseLiteral(node: ValueNode) {
    const value = node.kind === Kind.INT ? Number(node.value) : Number.NaN;
    if (!isMinorUnits(value) || value > MAX_AMOUNT) throw badMinorUnits();
    return value;
  },
});

// biome-ignore lint/suspicious/noExplicitAny: resolver maps are checked against the schema below.
type ResolverMap = Record<string, Record<string, GraphQLFieldResolver<any, any, any>>>;

const CONNECTIONS = [
  'EnrolledCourseConnection',
  'OrderConnection',
  'EventRegistrationConnection',
  'MembershipSubscriptionConnection',
];

/** Builds the executable schema once; a resolver naming an unknown field stops start-up. */
function buildAccountSchema(): GraphQLSchema {
  const schema = buildSchema(ACCOUNT_SDL);
  const maps: ResolverMap[] = [viewerResolvers, courseResolvers, commerceResolvers, mutationResolvers];
  maps.push(Object.fromEntries(CONNECTIONS.map((name) => [name, connectionResolvers])));
  for (const map of maps) {
    for (const [typeName, fields] of Object.entries(map)) {
      const type = schema.getType(typeName);
      if (!isObjectType(type)) throw new Error(`resolver for unknown type ${typeName}`);
      const defs = type.getFields();
      for (const [fieldName, resolve] of Object.entries(fields)) {
        if (!defs[fieldName]) throw new Error(`resolver for unknown field ${typeName}.${fieldName}`);
        defs[fieldName].resolve = resolve;
      }
    }
  }
  for (const impl of [DateTime, MinorUnits]) {
    Object.assign(schema.getType(impl.name) as GraphQLScalarType, {
      serialize: impl.serialize,
      parseValue: impl.parseValue,
      parseLiteral: impl.parseLiteral,
    });
  }
  return schema;
}

/** The one executable Account schema of the process (built at import, never per request). */
export const accountSchema: GraphQLSchema = buildAccountSchema();
