// `POST /v1/sessions/{id}/proxy_execute`: a raw HTTP request for one of the session's connected
// providers (validated) and the provider's answer as the gateway hands it back (documented).
import type { JsonSchema } from './json-schema';

const PROXY_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
const PROXY_MAX_TIMEOUT_MS = 30_000;

const HeaderName = {
  type: 'string',
  pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$",
} as const satisfies JsonSchema;
// What Node's HTTP client will put on the wire: tab, visible ASCII, space and Latin-1 (it throws on anything else).
const HeaderValue = {
  type: 'string',
  maxLength: 8192,
  pattern: '^[\\t\\u0020-\\u007e\\u0080-\\u00ff]*$',
} as const satisfies JsonSchema;

export const ProxyExecuteBody = {
  type: 'object',
  required: ['server_id', 'method', 'path'],
  additionalProperties: false,
  properties: {
    server_id: {
      type: 'string',
      pattern: '^[a-z0-9][a-z0-9-]{1,63}$',
      description: "The provider to reach: one of the session's servers, with an active connection.",
    },
    method: { enum: [...PROXY_METHODS] },
    path: {
      type: 'string',
      minLength: 1,
      maxLength: 2048,
      pattern: '^/',
      description:
        "Relative to the provider's base URL; it cannot leave it (`..`, another host and `\\` are refused).",
    },
    query: {
      type: 'object',
      maxProperties: 100,
      propertyNames: { maxLength: 200 },
      additionalProperties: {
        anyOf: [
          { type: 'string', maxLength: 4096 },
          { type: 'array', maxItems: 50, items: { type: 'string', maxLength: 4096 } },
        ],
      },
      description: 'Query parameters, appended to any the path already carries.',
    },
    headers: {
      type: 'object',
      maxProperties: 50,
      propertyNames: HeaderName,
      additionalProperties: HeaderValue,
      description:
        "Sent as given, except credential headers (`Authorization`, `Cookie`, the server's own credential headers) and hop-by-hop ones, which the gateway drops: the stored credential is the one injected.",
    },
    body: {
      description:
        'A JSON value, sent as `application/json` unless `headers` names another content type; a string is sent as its UTF-8 bytes.',
    },
    body_base64: {
      type: 'string',
      maxLength: 1_400_000,
      pattern: '^[A-Za-z0-9+/]*={0,2}$',
      description: 'Raw bytes instead of `body`.',
    },
    timeout_ms: {
      type: 'integer',
      minimum: 100,
      maximum: PROXY_MAX_TIMEOUT_MS,
      description: "How long to wait for the provider; the deployment's provider timeout when omitted.",
    },
  },
  not: { required: ['body', 'body_base64'] },
} as const satisfies JsonSchema;

export const ProxyExecuteAnswer = {
  type: 'object',
  required: ['object', 'server_id', 'status', 'headers', 'body', 'body_encoding', 'latency_ms'],
  properties: {
    object: { const: 'proxy_response' },
    server_id: { type: 'string' },
    status: {
      type: 'integer',
      description:
        "The provider's HTTP status, passed through (a provider refusal is a 4xx here, inside a 200).",
    },
    headers: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: "The provider's content and caching headers; any stored credential value is redacted.",
    },
    body: {
      description:
        "The provider's body: parsed when `body_encoding` is `json`, text for `text`, base64 for `base64`, null when empty. A stored credential value echoed by the provider is replaced by `[redacted]`.",
    },
    body_encoding: { enum: ['json', 'text', 'base64', 'empty'] },
    latency_ms: { type: 'integer', minimum: 0, description: 'Time spent at the provider.' },
  },
} as const satisfies JsonSchema;
