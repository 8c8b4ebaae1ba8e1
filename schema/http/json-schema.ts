// The JSON Schema (draft 2020-12) object type used by the validator and the OpenAPI document alike,
// the TypeScript type a schema admits, and the rules both apply to every request schema: numbers stay
// within the exactly representable range, and an object open to unnamed keys refuses the reserved key names.
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';

export interface JsonSchema {
  [keyword: string]: unknown;
}

/**
 * The value a schema admits, as ajv hands it over: a property with a `default` is always present, since
 * validation fills it in. Schemas are declared `as const satisfies JsonSchema` so their literal shape,
 * enums and required lists included, reaches the type; a schema only known as `JsonSchema` admits `unknown`.
 */
export type SchemaValue<S> = JsonSchema extends S ? unknown : S extends JSONSchema ? FromSchema<S> : unknown;

/** A schema built at run time (from a catalog or a table): validated and documented alike, its value typed loosely. */
export type BuiltSchema = Exclude<JSONSchema, boolean>;

/** A schema that also admits `null`. */
export const Nullable = <const S extends JsonSchema>(schema: S) =>
  ({ anyOf: [schema, { type: 'null' }] }) as const;

/**
 * JSON numbers and query text become JavaScript numbers, exact only up to 2^53 - 1; a larger "integer"
 * would be acted on as a different value (and overflows a bigint column), and a larger amount has no
 * exact minor units at all (1e308 times 100 is Infinity). Request schemas therefore bound every integer
 * and number to the safe range unless they declare a tighter bound themselves.
 */
export const SAFE_INTEGER_MAX = Number.MAX_SAFE_INTEGER;

const ONE_SCHEMA = [
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'items',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'propertyNames',
];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];

/**
 * Key names the request path refuses at any depth (api/validation.ts holds the walk); stated on every
 * object a request may fill with keys of its own choosing, so the document says what the server does.
 */
export const RESERVED_KEY_NAMES = ['__proto__', 'constructor', 'prototype'] as const;

/**
 * Text the request path refuses at any depth holds NUL (api/validation.ts); every request string that
 * no pattern, format or enum of its own already confines says so, keys of open objects included.
 */
export const NO_NUL_PATTERN = '^[^\\u0000]*$';
const NOT_RESERVED: JsonSchema = { not: { enum: [...RESERVED_KEY_NAMES] }, pattern: NO_NUL_PATTERN };

/** An object schema whose keys are not all named by it: additional or pattern properties are allowed. */
function opensKeys(schema: JsonSchema): boolean {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const objectLike =
    types.includes('object') ||
    schema.properties !== undefined ||
    schema.additionalProperties !== undefined ||
    schema.patternProperties !== undefined;
  return objectLike && (schema.additionalProperties !== false || schema.patternProperties !== undefined);
}

const bounded = new WeakMap<JsonSchema, JsonSchema>();

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function allowsNumber(schema: JsonSchema): boolean {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types.includes('integer') || types.includes('number');
}

/** A string schema whose values are free text: nothing but its length confines them. */
function freeText(schema: JsonSchema): boolean {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return (
    types.includes('string') &&
    schema.pattern === undefined &&
    schema.format === undefined &&
    schema.enum === undefined &&
    schema.const === undefined
  );
}

function bound(schema: JsonSchema): JsonSchema {
  const copy: JsonSchema = { ...schema };
  if (freeText(schema)) copy.pattern = NO_NUL_PATTERN;
  if (allowsNumber(schema)) {
    if (schema.maximum === undefined && schema.exclusiveMaximum === undefined)
      copy.maximum = SAFE_INTEGER_MAX;
    if (schema.minimum === undefined && schema.exclusiveMinimum === undefined)
      copy.minimum = -SAFE_INTEGER_MAX;
  }
  for (const key of ONE_SCHEMA) if (isSchema(schema[key])) copy[key] = bound(schema[key] as JsonSchema);
  for (const key of SCHEMA_LISTS) {
    if (Array.isArray(schema[key]))
      copy[key] = (schema[key] as unknown[]).map((inner) => (isSchema(inner) ? bound(inner) : inner));
  }
  for (const key of SCHEMA_MAPS) {
    if (!isSchema(schema[key])) continue;
    copy[key] = Object.fromEntries(
      Object.entries(schema[key] as JsonSchema).map(([name, inner]) => [
        name,
        isSchema(inner) ? bound(inner) : inner,
      ]),
    );
  }
  if (opensKeys(schema)) {
    copy.propertyNames = isSchema(copy.propertyNames)
      ? { allOf: [copy.propertyNames, NOT_RESERVED] }
      : NOT_RESERVED;
  }
  return copy;
}

/** The schema a request is validated against and documented with; the same object for the same declaration. */
export function requestSchema(schema: JsonSchema): JsonSchema {
  let result = bounded.get(schema);
  if (!result) {
    result = bound(schema);
    bounded.set(schema, result);
  }
  return result;
}
