// Builds the OpenAPI 3.1 document from the route declarations, so the request schemas it shows are
// the very objects the validator compiles, and each operation lists the answers the shared request path
// can give on top of its own (400 refused input, 404 unknown id, 413/415 bodies, 431 oversized head).
// Operator-only routes are left out.
import { ErrorEnvelope, ForbiddenScope, Unauthorized } from '../schema/http/common';
import { Event, webhookDocuments } from '../schema/http/events';
import { requestSchema, type JsonSchema } from '../schema/http/json-schema';
import type { AnyRoute } from './route';

export const API_VERSION = '0.3.0';

function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_]+)/g, '{$1}');
}

/** Each path parameter with the rule the router checks it against: the route's own, else free text. */
function pathParameters(path: string, declared: JsonSchema | undefined): JsonSchema[] {
  const properties = (declared ? (requestSchema(declared).properties ?? {}) : {}) as Record<
    string,
    JsonSchema
  >;
  return [...path.matchAll(/:([A-Za-z_]+)/g)].map((match) => ({
    name: match[1],
    in: 'path',
    required: true,
    schema: properties[match[1]] ?? FREE_PATH_TEXT,
  }));
}

const FREE_PATH_TEXT: JsonSchema = requestSchema({ type: 'string' });

function queryParameters(declared: JsonSchema | undefined): JsonSchema[] {
  if (!declared) return [];
  const schema = requestSchema(declared);
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: 'query',
    required: required.has(name),
    schema: property,
    ...(typeof property.description === 'string' ? { description: property.description } : {}),
  }));
}

function headerParameters(declared: JsonSchema | undefined): JsonSchema[] {
  return queryParameters(declared).map((parameter) => ({ ...parameter, in: 'header' }));
}

const envelopeOf = (description: string): JsonSchema => ({
  description,
  content: { 'application/json': { schema: ErrorEnvelope } },
});

/** Answers the router gives any operation before its handler runs, unless the route declares its own. */
function sharedResponses(route: AnyRoute, responses: Record<string, JsonSchema>): void {
  const readsBody = route.body !== undefined || (route.method !== 'get' && route.method !== 'delete');
  // A route speaking another protocol renders refused input (a bad body included) as its own declared 400.
  if (!route.onInputError) {
    responses['400'] ??= envelopeOf(
      'Refused input: `invalid_body`, `invalid_json`, `invalid_query` or `invalid_params` (details.issues): NUL or unpaired surrogates in text, a key named `__proto__`, `constructor` or `prototype` at any depth',
    );
    if (readsBody) {
      responses['413'] ??= envelopeOf(
        '`payload_too_large`: the body exceeds the size limit (details.limit_bytes)',
      );
      responses['415'] ??= envelopeOf(
        '`unsupported_media_type`: the body is not of a content type this operation takes',
      );
    }
  }
  if (route.path.includes(':')) {
    responses['400'] ??= envelopeOf('`invalid_params`: a path parameter holds NUL');
    responses['404'] ??= envelopeOf("`not_found`: no such resource in the caller's project");
  }
  responses['431'] ??= {
    description:
      "The request line or headers exceed the HTTP server's limit (answered before routing, without a body)",
  };
}

function operation(route: AnyRoute): JsonSchema {
  const responses: Record<string, JsonSchema> = {};
  for (const [status, spec] of Object.entries(route.responses)) {
    responses[status] = spec.schema
      ? {
          description: spec.description,
          content: { [spec.contentType ?? 'application/json']: { schema: spec.schema } },
        }
      : { description: spec.description };
  }
  const op: JsonSchema = {
    operationId: route.operationId,
    summary: route.summary,
    tags: route.tags,
    parameters: [
      ...pathParameters(route.path, route.params),
      ...queryParameters(route.query),
      ...headerParameters(route.headers),
    ],
    responses,
  };
  if (route.description) op.description = route.description;
  if (route.deprecated) op.deprecated = true;
  if (route.body) {
    const types = route.bodyTypes ?? ['json'];
    const content: Record<string, JsonSchema> = {};
    if (types.includes('json')) content['application/json'] = { schema: requestSchema(route.body) };
    if (types.includes('form'))
      content['application/x-www-form-urlencoded'] = { schema: requestSchema(route.body) };
    op.requestBody = { required: !route.bodyOptional, content };
  }
  sharedResponses(route, responses);
  if (route.auth === 'public') {
    op.security = [];
  } else {
    const scope = route.scope;
    op.security = [{ bearerAuth: typeof scope === 'string' && scope !== 'unmapped' ? [scope] : [] }];
    op['x-required-scope'] = scope === 'unmapped' ? null : scope;
    op['x-scope-mapping'] =
      scope === 'unmapped'
        ? 'unmapped: restricted keys are refused with 403 route_scope_unmapped'
        : scope === null
          ? 'none'
          : scope;
    responses['401'] = credentialRefusal(responses['401']);
    if (scope !== null) {
      responses['403'] ??= {
        description:
          'The key lacks the scope (`forbidden`), or the route has no scope mapping (`route_scope_unmapped`)',
        content: { 'application/json': { schema: { oneOf: [ForbiddenScope, ErrorEnvelope] } } },
      };
    }
  }
  return op;
}

const CREDENTIAL_REFUSED = 'Missing, malformed or revoked credential';

/** Every credentialed operation can answer the gateway's own 401; a route whose 401 also means something else answers either shape. */
function credentialRefusal(declared: JsonSchema | undefined): JsonSchema {
  if (!declared)
    return { description: CREDENTIAL_REFUSED, content: { 'application/json': { schema: Unauthorized } } };
  const own = (declared.content as Record<string, { schema: JsonSchema }> | undefined)?.['application/json']
    ?.schema;
  return {
    description: `${CREDENTIAL_REFUSED} (\`{"error":"unauthorized"}\`), or ${String(declared.description)}`,
    content: { 'application/json': { schema: own ? { anyOf: [own, Unauthorized] } : Unauthorized } },
  };
}

export function buildOpenApi(routes: AnyRoute[], serverUrl: string | undefined): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    if (route.auth === 'operator' || route.undocumented) continue;
    const path = openApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Agent Payments Gateway',
      version: API_VERSION,
      description:
        'One HTTP JSON API for AI agents: provider calls with vaulted credentials, policies, approvals, mandates, a ledger, receipts and signed webhooks. ' +
        'The environment follows the key prefix (`csk_live_` or `csk_test_`). Errors use `{error: {code, message, details?}, request_id}`; branch on `error.code`.',
    },
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
    security: [{ bearerAuth: [] }],
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An API key (`csk_live_…` / `csk_test_…`, 41 characters) or an OAuth 2.1 access token.',
        },
      },
      schemas: { ErrorEnvelope, Event },
    },
    paths,
    webhooks: webhookDocuments,
  };
}
