// Turns an operation's query and body JSON Schemas into typed flags: strings, numbers, integers,
// booleans, enums and arrays of those (repeated flags). Nested objects and unions have no flag; they
// travel in `--data`, which the flags then override key by key.
import type { Operation, Schema } from './document';

export type FlagKind = 'string' | 'number' | 'integer' | 'boolean';

export interface FlagSpec {
  /** The JSON key, e.g. `attempt_id`. */
  key: string;
  /** The flag, e.g. `attempt-id` for `--attempt-id`. */
  flag: string;
  location: 'query' | 'body';
  kind: FlagKind;
  array: boolean;
  choices?: string[];
  required: boolean;
  description: string;
}

/** Flags the CLI itself owns; an operation field of the same name is reachable through `--data`. */
export const RESERVED_FLAGS = new Set([
  'data',
  'json',
  'verbose',
  'api-key',
  'base-url',
  'profile',
  'help',
  'version',
]);

export function flagName(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/_/g, '-')
    .toLowerCase();
}

function scalarKind(schema: Schema): { kind: FlagKind; choices?: string[] } | undefined {
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.filter((v) => v !== null);
    if (values.every((v) => typeof v === 'string')) return { kind: 'string', choices: values as string[] };
    if (values.every((v) => typeof v === 'boolean')) return { kind: 'boolean' };
    if (values.every((v) => typeof v === 'number'))
      return { kind: Number.isInteger(values[0]) ? 'integer' : 'number', choices: values.map(String) };
    return undefined;
  }
  if (typeof schema.const === 'string') return { kind: 'string', choices: [schema.const] };
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter(
    (t) => t !== 'null' && t !== undefined,
  );
  if (types.length !== 1) return undefined;
  const [type] = types;
  if (type === 'string' || type === 'number' || type === 'integer' || type === 'boolean')
    return { kind: type };
  return undefined;
}

function flagFor(
  key: string,
  schema: Schema,
  location: FlagSpec['location'],
  required: boolean,
): FlagSpec | undefined {
  const flag = flagName(key);
  if (RESERVED_FLAGS.has(flag)) return undefined;
  const description = typeof schema.description === 'string' ? schema.description : '';
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('array') && schema.items && typeof schema.items === 'object') {
    const item = scalarKind(schema.items as Schema);
    if (!item || item.kind === 'boolean') return undefined;
    return {
      key,
      flag,
      location,
      kind: item.kind,
      array: true,
      choices: item.choices,
      required,
      description,
    };
  }
  const scalar = scalarKind(schema);
  if (!scalar) return undefined;
  return {
    key,
    flag,
    location,
    kind: scalar.kind,
    array: false,
    choices: scalar.choices,
    required,
    description,
  };
}

function objectFlags(schema: Schema | undefined, location: FlagSpec['location']): FlagSpec[] {
  if (!schema || typeof schema.properties !== 'object' || schema.properties === null) return [];
  const required = new Set((schema.required ?? []) as string[]);
  const flags: FlagSpec[] = [];
  for (const [key, property] of Object.entries(schema.properties as Record<string, Schema>)) {
    const spec = flagFor(key, property, location, required.has(key));
    if (spec) flags.push(spec);
  }
  return flags;
}

export function bodySchema(operation: Operation): Schema | undefined {
  return operation.requestBody?.content['application/json']?.schema;
}

/** Required body keys, flag or not: checked after `--data` and the flags are merged. */
export function requiredBodyKeys(operation: Operation): string[] {
  const schema = bodySchema(operation);
  return schema && Array.isArray(schema.required) ? (schema.required as string[]) : [];
}

export function operationFlags(operation: Operation): FlagSpec[] {
  const query: Schema = { type: 'object', properties: {}, required: [] };
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in !== 'query') continue;
    (query.properties as Record<string, Schema>)[parameter.name] = {
      ...(parameter.schema ?? {}),
      ...(parameter.description ? { description: parameter.description } : {}),
    };
    if (parameter.required) (query.required as string[]).push(parameter.name);
  }
  const flags = [...objectFlags(query, 'query'), ...objectFlags(bodySchema(operation), 'body')];
  const seen = new Set<string>();
  // A query and a body field of one name would share a flag; the body one then goes through `--data`.
  return flags.filter((f) => (seen.has(f.flag) ? false : (seen.add(f.flag), true)));
}

export class FlagValueError extends Error {}

/**
 * A number flag keeps the digits as typed: `--amount 0.000000000000000001` (BRLA has 18 decimals)
 * must reach the gateway exactly, which a float cannot carry. `jsonBody` writes it back verbatim.
 */
export class JsonNumber {
  constructor(readonly literal: string) {}
}

const NUMBER_LITERAL = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** JSON.stringify that writes each JsonNumber as its literal digits. */
export function jsonBody(value: unknown): string {
  const marker = `__number_${Math.random().toString(36).slice(2)}__`;
  const text = JSON.stringify(value, (_key, v: unknown) =>
    v instanceof JsonNumber ? `${marker}${v.literal}` : v,
  );
  return text.replace(new RegExp(`"${marker}([-0-9.eE+]+)"`, 'g'), '$1');
}

/** Parses one raw flag value by its kind; a wrong value is a usage error before any request. */
export function parseFlagValue(spec: FlagSpec, raw: string): string | number | boolean | JsonNumber {
  if (spec.kind === 'integer') {
    if (!/^-?\d+$/.test(raw)) throw new FlagValueError(`--${spec.flag} takes an integer, not "${raw}"`);
    return spec.location === 'body' ? new JsonNumber(raw) : Number(raw);
  }
  if (spec.kind === 'number') {
    if (!NUMBER_LITERAL.test(raw)) throw new FlagValueError(`--${spec.flag} takes a number, not "${raw}"`);
    return spec.location === 'body' ? new JsonNumber(raw) : raw;
  }
  if (spec.kind === 'boolean') {
    if (raw === 'true') return true;
    if (raw === 'false') return false;
    throw new FlagValueError(`--${spec.flag} takes true or false, not "${raw}"`);
  }
  return raw;
}
