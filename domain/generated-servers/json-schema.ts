// OpenAPI Schema Objects turned into the JSON Schema (2020-12) a tool publishes: only the keywords that
// validate or describe are kept (OpenAPI's `xml`, `example`, `discriminator` and extensions go), 3.0's
// `nullable` and boolean exclusive bounds become 2020-12's, a tuple `items` becomes `prefixItems`, a
// pattern no Unicode regular expression accepts is dropped, and each referenced schema is carried once
// under `$defs` (so recursive schemas stay finite).
import {
  isObject,
  refuseDocument,
  resolveRef,
  type Json,
  type JsonObject,
  type OpenApiDocument,
} from './document';

const SCHEMA_ONE = ['additionalProperties', 'not', 'propertyNames', 'contains', 'unevaluatedProperties'];
const SCHEMA_LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SCHEMA_MAP = ['properties', 'patternProperties'];
const PLAIN = [
  'type',
  'enum',
  'const',
  'required',
  'minimum',
  'maximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'title',
  'description',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
];
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null']);
/** The formats ajv-formats knows; any other is an annotation ajv would only warn about, so it goes. */
const FORMATS = new Set([
  'date',
  'time',
  'date-time',
  'duration',
  'uri',
  'uri-reference',
  'uri-template',
  'url',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'regex',
  'uuid',
  'json-pointer',
  'relative-json-pointer',
  'byte',
  'int32',
  'int64',
  'float',
  'double',
  'password',
  'binary',
]);

/** The `$defs` one tool's schema collects while its parts are converted. */
/** Schema nodes one generation may convert across all its tools, and how deep references may chain. */
export interface ConversionBudget {
  nodes: number;
}
const MAX_REFERENCE_CHAIN = 100;

export class SchemaDefs {
  readonly defs: Record<string, JsonObject> = {};
  private readonly keys = new Map<string, string>();
  private chain = 0;
  constructor(
    private readonly doc: OpenApiDocument,
    private readonly budget: ConversionBudget,
  ) {}

  /** The `$defs` key for a reference, converting its target the first time it is met. */
  refer(ref: string, where: string): string {
    const known = this.keys.get(ref);
    if (known) return known;
    const target = resolveRef(this.doc, ref, where);
    const base = (ref.startsWith('#/components/schemas/') ? ref.slice(21) : ref.slice(2))
      .replace(/[^A-Za-z0-9_.-]/g, '_')
      .slice(0, 100);
    let key = base || 'schema';
    for (let n = 2; Object.prototype.hasOwnProperty.call(this.defs, key); n++) key = `${base}_${n}`;
    this.keys.set(ref, key);
    this.defs[key] = {};
    if (++this.chain > MAX_REFERENCE_CHAIN)
      throw refuseDocument(
        'too_deep',
        `Schema references chain deeper than ${MAX_REFERENCE_CHAIN} at ${where}`,
        {
          pointer: where,
        },
      );
    this.defs[key] = this.convert(target, ref);
    this.chain--;
    return key;
  }

  convert(schema: Json | undefined, where: string): JsonObject {
    if (--this.budget.nodes < 0)
      throw refuseDocument('too_large', "The document's schemas are too large to turn into tools");
    if (schema === true || schema === undefined) return {};
    if (schema === false) return { not: {} };
    if (!isObject(schema))
      throw refuseDocument('invalid_schema', `${where} is not a schema`, { pointer: where });
    if (typeof schema.$ref === 'string') {
      const ref: JsonObject = { $ref: `#/$defs/${this.refer(schema.$ref, where)}` };
      // 3.0 ignores a reference's siblings; 3.1 keeps a description beside it.
      if (this.doc.dialect === '3.1' && typeof schema.description === 'string')
        ref.description = schema.description;
      return ref;
    }
    const out: JsonObject = {};
    for (const key of PLAIN) if (schema[key] !== undefined) out[key] = schema[key];
    const types = (Array.isArray(out.type) ? out.type : [out.type]).filter(
      (t): t is string => typeof t === 'string' && TYPES.has(t),
    );
    if (out.type !== undefined) {
      if (types.length === 0) delete out.type;
      else out.type = types.length === 1 ? types[0] : types;
    }
    if (
      out.required !== undefined &&
      !(Array.isArray(out.required) && out.required.every((r) => typeof r === 'string'))
    )
      delete out.required;
    if (out.enum !== undefined && !(Array.isArray(out.enum) && out.enum.length > 0)) delete out.enum;
    for (const bound of ['minimum', 'maximum', 'multipleOf'])
      if (out[bound] !== undefined && typeof out[bound] !== 'number') delete out[bound];
    if (typeof out.multipleOf === 'number' && out.multipleOf <= 0) delete out.multipleOf;
    for (const count of ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'])
      if (out[count] !== undefined && !(Number.isInteger(out[count]) && (out[count] as number) >= 0))
        delete out[count];
    if (out.examples !== undefined && !Array.isArray(out.examples)) delete out.examples;
    for (const text of ['title', 'description']) if (typeof out[text] !== 'string') delete out[text];
    if (this.doc.dialect === '3.0') {
      if (schema.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
      if (schema.exclusiveMinimum === true && typeof out.minimum === 'number') {
        out.exclusiveMinimum = out.minimum;
        delete out.minimum;
      }
      if (schema.exclusiveMaximum === true && typeof out.maximum === 'number') {
        out.exclusiveMaximum = out.maximum;
        delete out.maximum;
      }
      if (schema.example !== undefined && out.examples === undefined) out.examples = [schema.example];
    } else {
      for (const bound of ['exclusiveMinimum', 'exclusiveMaximum'])
        if (typeof schema[bound] === 'number') out[bound] = schema[bound];
    }
    if (typeof schema.format === 'string' && FORMATS.has(schema.format)) out.format = schema.format;
    if (typeof schema.pattern === 'string' && validPattern(schema.pattern)) out.pattern = schema.pattern;
    for (const key of SCHEMA_ONE)
      if (schema[key] !== undefined && (isObject(schema[key]) || typeof schema[key] === 'boolean'))
        out[key] = this.convert(schema[key], `${where}/${key}`);
    if (Array.isArray(schema.items))
      out.prefixItems = schema.items.map((item, i) => this.convert(item, `${where}/items/${i}`));
    else if (schema.items !== undefined) out.items = this.convert(schema.items, `${where}/items`);
    for (const key of SCHEMA_LIST) {
      const list = schema[key];
      if (Array.isArray(list) && list.length > 0)
        out[key] = list.map((inner, i) => this.convert(inner, `${where}/${key}/${i}`));
    }
    for (const key of SCHEMA_MAP) {
      const map = schema[key];
      if (!isObject(map)) continue;
      const converted: JsonObject = {};
      for (const [name, inner] of Object.entries(map)) {
        if (key === 'patternProperties' && !validPattern(name)) continue;
        converted[name] = this.convert(inner, `${where}/${key}/${name}`);
      }
      out[key] = converted;
    }
    return out;
  }
}

function validPattern(pattern: string): boolean {
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}
