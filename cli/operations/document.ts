// The slice of an OpenAPI 3.1 document the command generator reads, typed loosely on purpose: the
// generator walks JSON Schemas of any shape and must never trust them to be complete.
export type Schema = Record<string, unknown>;

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
  description?: string;
}

export interface Operation {
  operationId: string;
  summary?: string;
  description?: string;
  deprecated?: boolean;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: Schema }> };
  responses: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }>;
  security?: unknown[];
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
}

export const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
export type Method = (typeof HTTP_METHODS)[number];

export interface DocumentedOperation {
  method: Method;
  path: string;
  operation: Operation;
}

/** Operations a key or OAuth token can call: everything but the public credential-issuing ones. */
export function keyReachableOperations(document: OpenApiDocument): DocumentedOperation[] {
  const found: DocumentedOperation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      if (Array.isArray(operation.security) && operation.security.length === 0) continue;
      found.push({ method, path, operation });
    }
  }
  return found;
}
