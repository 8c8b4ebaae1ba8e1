// ajv validators, compiled once per schema: bodies strictly (unknown fields refused, defaults filled),
// query strings and path params with type coercion since they arrive as text; and the rules every
// input obeys before any schema sees it (no NUL, no lone UTF-16 surrogate, no prototype-shaped key).
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { ApiError } from '../domain/errors';
import { RESERVED_KEY_NAMES, type JsonSchema } from '../schema/http/json-schema';

function makeAjv(coerceTypes: boolean): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    useDefaults: true,
    coerceTypes,
    strict: false,
    discriminator: true,
  });
  addFormats(ajv);
  return ajv;
}

const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

export interface ValidationIssue {
  path: string;
  message: string;
  keyword: string;
}

function issuesOf(errors: ErrorObject[] | null | undefined): ValidationIssue[] {
  return (errors ?? []).map((error) => {
    let path = error.instancePath || '/';
    if (error.keyword === 'required')
      path = `${error.instancePath}/${(error.params as { missingProperty: string }).missingProperty}`;
    if (error.keyword === 'additionalProperties') {
      path = `${error.instancePath}/${(error.params as { additionalProperty: string }).additionalProperty}`;
      return { path, message: 'is not an accepted field', keyword: error.keyword };
    }
    return { path, message: error.message ?? 'is invalid', keyword: error.keyword };
  });
}

export function compile(schema: JsonSchema, from: 'body' | 'text'): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = (from === 'body' ? bodyAjv : textAjv).compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

export type InputKind = 'body' | 'query' | 'params';
const CODES: Record<InputKind, string> = {
  body: 'invalid_body',
  query: 'invalid_query',
  params: 'invalid_params',
};
const NOUNS: Record<InputKind, string> = {
  body: 'Request body',
  query: 'Query string',
  params: 'Path parameter',
};

/** Validates (and, for text, coerces) in place; throws the spec's 400 with details.issues. */
export function check(validate: ValidateFunction, value: unknown, kind: InputKind): void {
  if (!validate(value)) throw refusal(validate, kind);
}

/** The value as its schema's type, once `validate` (compiled from that schema) accepts it; else the 400. */
export function conforming<T>(validate: ValidateFunction<T>, value: unknown, kind: InputKind): T {
  if (validate(value)) return value;
  throw refusal(validate, kind);
}

function refusal(validate: ValidateFunction, kind: InputKind): ApiError {
  const issues = issuesOf(validate.errors);
  const first = issues[0];
  const summary = first ? `${first.path} ${first.message}` : 'is invalid';
  const details: Record<string, unknown> = { issues };
  // Keyed documents (project settings) also name the offending key, as the spec's details.key: the
  // body's own keys (`true`), or those of the object at the named field.
  const keyed = (validate.schema as Record<string, unknown>)['x-error-key'];
  const segments = first ? first.path.split('/') : [];
  if (keyed === true && segments[1]) details.key = segments[1];
  if (typeof keyed === 'string' && segments[1] === keyed && segments[2]) details.key = segments[2];
  return new ApiError(400, CODES[kind], `${NOUNS[kind]} is invalid: ${summary}`, details);
}

/**
 * A body refused by the validator where some issues break rules the document states but whose refusal
 * the contract names with its own code, answered by a check the handler runs once the rest is valid:
 * when those are the only issues, `own` answers as that check does; otherwise the other issues answer
 * alone, as before the document stated the rule.
 */
export function answerOwnRefusals(
  error: ApiError,
  owned: (issue: ValidationIssue) => boolean,
  own: () => void,
): never {
  const issues = (error.details?.issues ?? []) as ValidationIssue[];
  const rest = issues.filter((issue) => !owned(issue));
  if (error.code !== CODES.body || rest.length === issues.length) throw error;
  if (rest.length === 0) own();
  else
    throw new ApiError(400, error.code, `${NOUNS.body} is invalid: ${rest[0].path} ${rest[0].message}`, {
      ...error.details,
      issues: rest,
    });
  throw error;
}

/** A lone half of a UTF-16 surrogate pair: JSON can spell it (`"\\ud800"`), but no UTF-8 text, and so no PostgreSQL text, can hold it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function unstorable(text: string): string | undefined {
  if (text.includes('\u0000')) return 'contains a NUL character';
  if (LONE_SURROGATE.test(text)) return 'contains an unpaired UTF-16 surrogate';
  return undefined;
}

/**
 * Keys that reach, or stand for, an object's prototype when input is used as a lookup table
 * (`SETTINGS[key]`, `target[key] = value`). JSON.parse makes `__proto__` an own property, so it passes
 * Object.entries and ajv's open objects untouched, and assigning it elsewhere replaces a prototype.
 */
const RESERVED_KEYS: readonly string[] = RESERVED_KEY_NAMES;

function refusedKey(key: string): string | undefined {
  const problem = unstorable(key);
  if (problem) return `has a key that ${problem}`;
  if (RESERVED_KEYS.includes(key)) return 'is a reserved key name';
  return undefined;
}

/**
 * Refuses input holding text PostgreSQL cannot store, or a reserved key name, in any key or value at
 * any depth, as the kind's 400 naming the path. Walked with an explicit stack: the body's nesting is
 * already capped, but the walk need not rely on it.
 */
export function refuseUnsafeInput(value: unknown, kind: InputKind): void {
  const pending: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  while (pending.length > 0) {
    const { value: current, path } = pending.pop()!;
    let problem: string | undefined;
    let at = path || '/';
    let keyword = 'text';
    if (typeof current === 'string') {
      problem = unstorable(current);
    } else if (Array.isArray(current)) {
      current.forEach((inner, index) => pending.push({ value: inner, path: `${path}/${index}` }));
    } else if (current !== null && typeof current === 'object') {
      for (const [key, inner] of Object.entries(current)) {
        problem = refusedKey(key);
        if (problem) {
          at = `${path}/${key.replace(/[^\x20-\x7e]/g, '?')}`;
          if (RESERVED_KEYS.includes(key)) keyword = 'propertyNames';
          break;
        }
        pending.push({ value: inner, path: `${path}/${key}` });
      }
    }
    if (problem) {
      throw new ApiError(400, CODES[kind], `${NOUNS[kind]} is invalid: ${at} ${problem}`, {
        issues: [{ path: at, message: problem, keyword }],
      });
    }
  }
}
