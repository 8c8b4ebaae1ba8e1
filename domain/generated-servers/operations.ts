// One tool per operation of an OpenAPI document: its name (the operationId in snake_case, or one made of
// the method and path), its description (summary and description), its input schema (each parameter a
// property, the request body under `body`), and how its arguments go back onto the wire.
import {
  clip,
  deref,
  escapePointer,
  isObject,
  refuseDocument,
  type Json,
  type JsonObject,
  type OpenApiDocument,
} from './document';
import { SchemaDefs, type ConversionBudget } from './json-schema';

export type ParameterPlace = 'path' | 'query' | 'header' | 'cookie';
// Cookie parameters are read (so a document declaring them is taken) but never become arguments.

/** Where one argument goes: a parameter's place and its name on the wire. */
export interface OperationParam {
  arg: string;
  in: ParameterPlace;
  name: string;
}

/** What a tool call becomes upstream: method, path template, parameters, and how the body is encoded. */
export interface GeneratedOperation {
  method: string;
  path: string;
  params: OperationParam[];
  body: { encoding: 'json' | 'form' | 'text'; contentType: string } | null;
  /** The security schemes the operation accepts, as sets any one of which suffices (empty: open). */
  security: string[][];
}

export interface DraftTool {
  /** `GET /pet/{petId}`: the operation, what the tool stays bound to through renames. */
  operationKey: string;
  name: string;
  description: string;
  inputSchema: JsonObject;
  operation: GeneratedOperation;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
export const MAX_TOOLS = 300;
const MAX_DESCRIPTION = 1000;
/** Headers HTTP or the gateway sets itself; OpenAPI says such parameters are ignored. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
const OWN_HEADERS = new Set(['accept', 'content-type', 'authorization', 'content-length', 'host']);

/** snake_case within the tool-name pattern: `findPetsByStatus` → `find_pets_by_status`. */
export function snakeName(text: string): string {
  const snake = text
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  const named = /^[a-z]/.test(snake) ? snake : `op_${snake}`;
  return named.slice(0, 64).replace(/_+$/, '');
}

function generatedName(method: string, path: string): string {
  const parts = path
    .split('/')
    .filter(Boolean)
    .map((segment) => {
      const param = /^\{(.+)\}$/.exec(segment);
      return param ? `by_${param[1]}` : segment;
    });
  return snakeName([method, ...parts].join('_'));
}

function uniqueName(base: string, taken: Set<string>): string {
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base.slice(0, 60).replace(/_+$/, '')}_${n}`;
  taken.add(name);
  return name;
}

function describe(operation: JsonObject, key: string): string {
  const summary = typeof operation.summary === 'string' ? operation.summary.trim() : '';
  const detail = typeof operation.description === 'string' ? operation.description.trim() : '';
  const text = [summary, detail && detail !== summary ? detail : ''].filter(Boolean).join('\n\n') || key;
  return text.length > MAX_DESCRIPTION ? `${clip(text, MAX_DESCRIPTION - 1)}…` : text;
}

function securityOf(value: Json | undefined): string[][] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter(isObject).map((requirement) => Object.keys(requirement));
}

/** Path-level parameters, overridden by the operation's own of the same name and place. */
function parametersOf(doc: OpenApiDocument, pathItem: JsonObject, operation: JsonObject, where: string) {
  const byKey = new Map<string, { param: JsonObject; pointer: string }>();
  const pathPointer = where.slice(0, where.lastIndexOf('/'));
  for (const [list, base] of [
    [pathItem.parameters, `${pathPointer}/parameters`],
    [operation.parameters, `${where}/parameters`],
  ] as const) {
    if (list === undefined) continue;
    if (!Array.isArray(list))
      throw refuseDocument('invalid_parameters', `${base} must be a list`, { pointer: base });
    list.forEach((raw, i) => {
      const pointer = `${base}/${i}`;
      const param = deref(doc, raw, pointer);
      if (
        !param ||
        typeof param.name !== 'string' ||
        !['path', 'query', 'header', 'cookie'].includes(param.in as string)
      )
        throw refuseDocument(
          'invalid_parameter',
          `${pointer} needs a \`name\` and an \`in\` of path, query, header or cookie`,
          {
            pointer,
          },
        );
      byKey.set(`${param.in as string}:${param.name}`, { param, pointer });
    });
  }
  return [...byKey.values()];
}

function bodyOf(doc: OpenApiDocument, operation: JsonObject, where: string) {
  const body = deref(doc, operation.requestBody, `${where}/requestBody`);
  if (!body || !isObject(body.content)) return null;
  const types = Object.keys(body.content);
  const json = types.find((t) => /^application\/(.+\+)?json\b/i.test(t));
  const form = types.find((t) => /^application\/x-www-form-urlencoded\b/i.test(t));
  const chosen = json ?? form ?? types[0];
  if (!chosen) return null;
  const media = body.content[chosen];
  const encoding: 'json' | 'form' | 'text' = json ? 'json' : form ? 'form' : 'text';
  return {
    encoding,
    contentType: chosen,
    required: body.required === true,
    description: typeof body.description === 'string' ? body.description : undefined,
    schema: isObject(media) ? media.schema : undefined,
    pointer: `${where}/requestBody/content/${escapePointer(chosen)}/schema`,
  };
}

/**
 * The operation's tool. `credential` names the parameters the server's auth fills (`header:api_key`):
 * they are the vault's to send, never an argument.
 */
function toolOf(
  doc: OpenApiDocument,
  budget: ConversionBudget,
  method: string,
  path: string,
  pathItem: JsonObject,
  operation: JsonObject,
  credential: Set<string>,
): Omit<DraftTool, 'name'> & { preferred: string } {
  const where = `/paths/${escapePointer(path)}/${method}`;
  const defs = new SchemaDefs(doc, budget);
  const properties: JsonObject = {};
  const required: string[] = [];
  const params: OperationParam[] = [];
  for (const { param, pointer } of parametersOf(doc, pathItem, operation, where)) {
    const place = param.in as ParameterPlace;
    const name = param.name as string;
    // Cookies are the gateway's to withhold, and a header needs a name HTTP can carry.
    if (place === 'cookie') continue;
    if (place === 'header' && (OWN_HEADERS.has(name.toLowerCase()) || !HEADER_NAME.test(name))) continue;
    if (credential.has(`${place}:${name.toLowerCase()}`)) continue;
    if (place === 'path' && !path.includes(`{${name}}`)) continue;
    let arg = name === 'body' || properties[name] !== undefined ? `${name}_${place}` : name;
    for (let n = 2; properties[arg] !== undefined; n++) arg = `${name}_${place}_${n}`;
    const content = isObject(param.content) ? Object.values(param.content).find(isObject) : undefined;
    const schema = defs.convert(param.schema ?? content?.schema, `${pointer}/schema`);
    if (
      typeof param.description === 'string' &&
      schema.description === undefined &&
      schema.$ref === undefined
    )
      schema.description = param.description;
    properties[arg] = schema;
    if (place === 'path' || param.required === true) required.push(arg);
    params.push({ arg, in: place, name });
  }
  // A path parameter the document forgot to declare is still the caller's to give.
  for (const match of path.matchAll(/\{([^}]+)\}/g)) {
    if (params.some((p) => p.in === 'path' && p.name === match[1])) continue;
    const arg = properties[match[1]] === undefined && match[1] !== 'body' ? match[1] : `${match[1]}_path`;
    properties[arg] = { type: 'string' };
    required.push(arg);
    params.push({ arg, in: 'path', name: match[1] });
  }
  const body = bodyOf(doc, operation, where);
  if (body) {
    const schema =
      body.encoding === 'text' && body.schema === undefined
        ? { type: 'string' }
        : defs.convert(body.schema, body.pointer);
    if (body.description && schema.description === undefined && schema.$ref === undefined)
      schema.description = body.description;
    properties.body = schema;
    if (body.required) required.push('body');
  }
  const inputSchema: JsonObject = { type: 'object', properties, additionalProperties: false };
  if (required.length > 0) inputSchema.required = required;
  if (Object.keys(defs.defs).length > 0) inputSchema.$defs = defs.defs;
  const key = `${method.toUpperCase()} ${path}`;
  return {
    operationKey: key,
    preferred:
      typeof operation.operationId === 'string' && snakeName(operation.operationId)
        ? snakeName(operation.operationId)
        : generatedName(method, path),
    description: describe(operation, key),
    inputSchema,
    operation: {
      method: method.toUpperCase(),
      path,
      params,
      body: body ? { encoding: body.encoding, contentType: body.contentType } : null,
      security: securityOf(operation.security) ?? securityOf(doc.root.security) ?? [],
    },
  };
}

/** Every operation of the document, in document order; names made unique by a numeric suffix. */
export function toolsOf(doc: OpenApiDocument, credential: Set<string>): DraftTool[] {
  const paths = isObject(doc.root.paths) ? doc.root.paths : {};
  const budget: ConversionBudget = { nodes: 400_000 };
  const found: Array<ReturnType<typeof toolOf>> = [];
  for (const [path, rawItem] of Object.entries(paths)) {
    if (!path.startsWith('/'))
      throw refuseDocument('invalid_paths', `The path "${clip(path, 200)}" does not start with "/"`, {
        pointer: `/paths/${escapePointer(path)}`,
      });
    const pathItem = deref(doc, rawItem, `/paths/${escapePointer(path)}`);
    if (!pathItem) continue;
    for (const method of METHODS) {
      const operation = pathItem[method];
      if (!isObject(operation)) continue;
      if (found.length >= MAX_TOOLS)
        throw refuseDocument('too_many_operations', `The document has more than ${MAX_TOOLS} operations`, {
          max_operations: MAX_TOOLS,
        });
      found.push(toolOf(doc, budget, method, path, pathItem, operation, credential));
    }
  }
  if (found.length === 0)
    throw refuseDocument('no_operations', 'The document has no operations to make tools of');
  const taken = new Set<string>();
  return found.map(({ preferred, ...tool }) => ({ ...tool, name: uniqueName(preferred, taken) }));
}
