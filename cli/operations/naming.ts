// Names each operation as `resource … action <path params>` from its path alone, so a new route gets
// a predictable command without anyone writing it: `/v1/wallets/{id}/execute` is `wallets execute <id>`,
// `/v1/consumers/{consumerId}/receipts` is `consumers receipts list <consumerId>`.
import {
  keyReachableOperations,
  type DocumentedOperation,
  type OpenApiDocument,
  type Schema,
} from './document';

export interface CommandName {
  /** Command words from the root, e.g. ['consumers', 'receipts', 'list']. */
  words: string[];
  /** Path parameters in path order; they become positional arguments. */
  pathParams: string[];
}

function segmentsOf(path: string): string[] {
  return path.split('/').filter((s) => s && s !== 'v1');
}

const isParam = (segment: string) => segment.startsWith('{');

function successSchema(operation: DocumentedOperation['operation']): Schema | undefined {
  for (const [status, response] of Object.entries(operation.responses)) {
    if (!status.startsWith('2')) continue;
    const content = response.content?.['application/json'];
    if (content?.schema) return content.schema;
  }
  return undefined;
}

/** A read answers a collection when its body is an array or an object holding one at its top level. */
function answersCollection(operation: DocumentedOperation['operation']): boolean {
  const schema = successSchema(operation);
  if (!schema) return false;
  if (schema.type === 'array') return true;
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties).some(
    ([name, property]) => required.has(name) && property.type === 'array',
  );
}

export function commandName(document: OpenApiDocument, entry: DocumentedOperation): CommandName {
  const segments = segmentsOf(entry.path);
  const statics = segments.filter((s) => !isParam(s));
  const pathParams = segments.filter(isParam).map((s) => s.slice(1, -1));
  const endsWithParam = isParam(segments[segments.length - 1] ?? '');
  const siblings = document.paths[entry.path] ?? {};
  if (endsWithParam) {
    const action = { get: 'get', patch: 'update', put: 'replace', delete: 'delete', post: 'call' }[
      entry.method
    ];
    return { words: [...statics, action], pathParams };
  }
  switch (entry.method) {
    case 'get': {
      if (siblings.post || answersCollection(entry.operation))
        return { words: [...statics, 'list'], pathParams };
      // A lone top-level read such as `whoami` is its own command.
      if (statics.length === 1 && pathParams.length === 0) return { words: statics, pathParams };
      return { words: [...statics, 'get'], pathParams };
    }
    case 'post': {
      // A collection (read and created at the same path) or a lone top-level noun is created;
      // anything else at the end of a path is a verb on what precedes it.
      if (siblings.get || statics.length === 1) return { words: [...statics, 'create'], pathParams };
      return { words: statics, pathParams };
    }
    case 'patch':
      return { words: [...statics, 'update'], pathParams };
    case 'put':
      return { words: [...statics, 'replace'], pathParams };
    case 'delete':
      return { words: [...statics, 'delete'], pathParams };
  }
}

export interface NamedOperation extends DocumentedOperation, CommandName {}

/**
 * Names every key-reachable operation. A verb that would also be the parent of other commands
 * (`consumers contact-verifications` beside `… verify`) becomes `create`, and two operations that still
 * share a name are a build error, so a new route can never be left without its own command.
 */
export function commandTable(document: OpenApiDocument): NamedOperation[] {
  const named = keyReachableOperations(document).map((entry) => ({
    ...entry,
    ...commandName(document, entry),
  }));
  const isPrefix = (short: string[], long: string[]) =>
    short.length < long.length && short.every((w, i) => long[i] === w);
  for (const entry of named) {
    if (named.some((other) => other !== entry && isPrefix(entry.words, other.words)))
      entry.words = [...entry.words, entry.method === 'get' ? 'get' : 'create'];
  }
  const seen = new Map<string, NamedOperation>();
  for (const entry of named) {
    const key = entry.words.join(' ');
    const earlier = seen.get(key);
    if (earlier)
      throw new Error(
        `two operations would both be \`gateway ${key}\`: ${earlier.method} ${earlier.path} and ${entry.method} ${entry.path}`,
      );
    seen.set(key, entry);
  }
  return named;
}
