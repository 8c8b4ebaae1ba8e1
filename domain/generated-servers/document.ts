// An OpenAPI 3.0 or 3.1 document as generation reads it: parsed from JSON or YAML text (or taken as
// sent), bounded in depth and size, with prototype-shaped keys refused, its version checked, and its
// local references (`#/components/...`) followed. Every refusal is 422 `invalid_document` with a reason.
import { parse as parseYaml } from 'yaml';
import { ApiError } from '../errors';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface OpenApiDocument {
  /** `3.0` or `3.1`: how schemas are read (3.0's `nullable`, boolean exclusive bounds). */
  dialect: '3.0' | '3.1';
  openapi: string;
  root: JsonObject;
}

/** Deeper than any real document; a deeper one would only exhaust a stack. */
const MAX_DEPTH = 64;
/** Nodes of the whole document: beyond it a document is refused before anything is derived from it. */
const MAX_NODES = 500_000;
const RESERVED = new Set(['__proto__', 'constructor', 'prototype']);

/** NUL and unpaired UTF-16 surrogates: PostgreSQL's text and jsonb refuse them, so the document does. */
// eslint-disable-next-line no-control-regex
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** At most `max` UTF-16 units, never ending inside a surrogate pair. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  return /[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut;
}

export function refuseDocument(
  reason: string,
  message: string,
  extra: Record<string, unknown> = {},
): ApiError {
  return new ApiError(422, 'invalid_document', message, { reason, ...extra });
}

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function parseText(text: string): unknown {
  const trimmed = text.trimStart();
  try {
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) return JSON.parse(trimmed);
    return parseYaml(text, { maxAliasCount: 100, prettyErrors: false, uniqueKeys: true });
  } catch (error) {
    throw refuseDocument(
      'not_parsable',
      `The document is neither JSON nor YAML: ${(error as Error).message.split('\n')[0].slice(0, 200)}`,
    );
  }
}

/** Checks depth, size and key names in one walk; YAML's own values (dates, infinities) become JSON's. */
function asJson(value: unknown): Json {
  let nodes = 0;
  const walk = (node: unknown, depth: number, pointer: string): Json => {
    if (++nodes > MAX_NODES)
      throw refuseDocument('too_large', `The document has more than ${MAX_NODES} values`);
    if (depth > MAX_DEPTH)
      throw refuseDocument('too_deep', `The document nests deeper than ${MAX_DEPTH} levels`, { pointer });
    if (typeof node === 'string') {
      if (UNSTORABLE.test(node))
        throw refuseDocument('invalid_text', 'The document holds NUL or an unpaired surrogate in a string', {
          pointer,
        });
      return node;
    }
    if (node === null || typeof node === 'boolean') return node;
    if (typeof node === 'number') return Number.isFinite(node) ? node : null;
    if (node instanceof Date) return node.toISOString();
    if (Array.isArray(node)) return node.map((item, i) => walk(item, depth + 1, `${pointer}/${i}`));
    if (typeof node === 'object') {
      const out: JsonObject = {};
      for (const [key, inner] of Object.entries(node as Record<string, unknown>)) {
        if (UNSTORABLE.test(key))
          throw refuseDocument('invalid_text', 'The document holds NUL or an unpaired surrogate in a key', {
            pointer,
          });
        if (RESERVED.has(key))
          throw refuseDocument('reserved_key', `The document uses the reserved key name "${key}"`, {
            pointer: `${pointer}/${key}`,
          });
        out[key] = walk(inner, depth + 1, `${pointer}/${escapePointer(key)}`);
      }
      return out;
    }
    return null;
  };
  return walk(value, 0, '');
}

export const escapePointer = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** The document a request carries: an object as sent, or JSON or YAML text. */
export function readDocument(input: unknown): OpenApiDocument {
  const root = asJson(typeof input === 'string' ? parseText(input) : input);
  if (!isObject(root)) throw refuseDocument('not_openapi', 'The document is not an object');
  const openapi = root.openapi;
  if (typeof openapi !== 'string') {
    const swagger = typeof root.swagger === 'string' ? ` (it is Swagger ${root.swagger})` : '';
    throw refuseDocument('not_openapi', `The document has no "openapi" version${swagger}`);
  }
  const dialect = /^3\.0\.\d+$/.test(openapi) ? '3.0' : /^3\.1\.\d+$/.test(openapi) ? '3.1' : null;
  if (!dialect)
    throw refuseDocument('unsupported_version', `OpenAPI ${clip(openapi, 40)} is not 3.0.x or 3.1.x`, {
      openapi: clip(openapi, 40),
    });
  if (!isObject(root.info) || typeof root.info.title !== 'string' || typeof root.info.version !== 'string')
    throw refuseDocument('invalid_info', 'The document needs `info.title` and `info.version` strings', {
      pointer: '/info',
    });
  if (root.paths !== undefined && !isObject(root.paths))
    throw refuseDocument('invalid_paths', '`paths` must be an object', { pointer: '/paths' });
  if (root.components !== undefined && !isObject(root.components))
    throw refuseDocument('invalid_components', '`components` must be an object', { pointer: '/components' });
  return { dialect, openapi, root };
}

/** The value a JSON Pointer names in the document; undefined when it names nothing. */
function atPointer(root: JsonObject, pointer: string): Json | undefined {
  let node: Json | undefined = root;
  for (const raw of pointer.split('/').slice(1)) {
    let key: string;
    try {
      key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined;
    }
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isObject(node) && Object.prototype.hasOwnProperty.call(node, key)) node = node[key];
    else return undefined;
  }
  return node;
}

/**
 * Follows `$ref` chains of a non-schema object (a parameter, a request body, a security scheme) to the
 * object itself. Only local references exist for generation: another file would be a fetch per reference.
 */
export function deref(doc: OpenApiDocument, value: Json | undefined, where: string): JsonObject | undefined {
  let node = value;
  for (let hops = 0; isObject(node) && typeof node.$ref === 'string'; hops++) {
    if (hops >= 32)
      throw refuseDocument('invalid_reference', `References loop at ${where}`, { pointer: where });
    node = resolveRef(doc, node.$ref, where);
  }
  return isObject(node) ? node : undefined;
}

export function resolveRef(doc: OpenApiDocument, ref: string, where: string): Json {
  if (!ref.startsWith('#/'))
    throw refuseDocument(
      'external_reference',
      `Only references inside the document are followed; ${where} names ${clip(ref, 200)}`,
      { pointer: where },
    );
  const found = atPointer(doc.root, ref.slice(1));
  if (found === undefined)
    throw refuseDocument('invalid_reference', `${where} refers to ${clip(ref, 200)}, which does not exist`, {
      pointer: where,
    });
  return found;
}
