// Webhook endpoints (triggers) and their deliveries: request schemas (validated) and response schemas (documented).
import { SUBSCRIBABLE_EVENT_TYPES, type EventType } from '../../contracts/event-catalog';
import { Timestamp } from './common';
import { eventTypeEnum } from './events';
import type { JsonSchema } from './json-schema';

const TriggerId = { type: 'string', pattern: '^trg_[0-9A-Za-z]{16}$' } as const satisfies JsonSchema;
const EventName = eventTypeEnum(
  SUBSCRIBABLE_EVENT_TYPES,
  'An event type from the catalog (`GET /v1/event-types`); dot-separated lowercase.',
);

export const WebhookEndpoint = {
  type: 'object',
  required: [
    'id',
    'org_id',
    'project_id',
    'name',
    'event',
    'webhook_url',
    'server_id',
    'status',
    'total_runs',
    'last_run_at',
    'signing_enabled',
    'created_at',
  ],
  properties: {
    id: TriggerId,
    org_id: { type: 'string' },
    project_id: { type: 'string' },
    name: { type: 'string' },
    event: { type: 'string' },
    webhook_url: { type: 'string', format: 'uri' },
    server_id: {
      type: ['string', 'null'],
      description: 'When set, only events whose data names this server are delivered.',
    },
    status: {
      enum: ['active', 'paused', 'error'],
      description: '`error`: auto-paused after consecutive dead deliveries; a PATCH to `active` reactivates.',
    },
    status_reason: {
      enum: ['requested', 'gone', 'consecutive_dead', null],
      description:
        'Why the endpoint is not active: paused by request, the receiver answered 410 Gone, or auto-paused. Null while active.',
    },
    total_runs: { type: 'integer', description: 'Delivered attempts only.' },
    last_run_at: { anyOf: [Timestamp, { type: 'null' }], description: 'The last delivered attempt.' },
    signing_enabled: {
      type: 'boolean',
      description: 'Whether a signing secret exists; the secret itself is never returned after creation.',
    },
    created_at: Timestamp,
    updated_at: Timestamp,
  },
} as const satisfies JsonSchema;

export const WebhookEndpointCreated = {
  ...WebhookEndpoint,
  required: [...WebhookEndpoint.required, 'signing_secret'],
  properties: {
    ...WebhookEndpoint.properties,
    signing_secret: {
      type: 'string',
      pattern: '^whsec_',
      description:
        'Standard Webhooks signing secret, shown only in this response. Verify each delivery with any Standard Webhooks library: ' +
        'the `webhook-signature` header holds `v1,<base64 HMAC-SHA256>` over `{webhook-id}.{webhook-timestamp}.{body}`.',
    },
  },
} as const satisfies JsonSchema;

export const WebhookEndpointCreate = {
  type: 'object',
  required: ['name', 'event', 'webhook_url'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 128 },
    event: EventName,
    webhook_url: {
      type: 'string',
      format: 'uri',
      maxLength: 2048,
      description:
        'https required in the live environment, where loopback, private and link-local addresses are refused; http and loopback are allowed in test.',
    },
    server_id: {
      type: ['string', 'null'],
      minLength: 1,
      maxLength: 128,
      description: 'Narrow the subscription to events of one server.',
    },
  },
} as const satisfies JsonSchema;

export const WebhookEndpointUpdate = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 128 },
    webhook_url: { type: 'string', format: 'uri', maxLength: 2048 },
    status: {
      enum: ['active', 'paused'],
      description: 'Pause or (re)activate; reactivating sends the deliveries that waited.',
    },
  },
} as const satisfies JsonSchema;

export const WebhookEndpointListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    before: { ...TriggerId, description: 'Cursor: the `next_before` of the previous page.' },
    event: { type: 'string', minLength: 1, maxLength: 128 },
    server_id: { type: 'string', minLength: 1, maxLength: 128 },
    status: { enum: ['active', 'paused', 'error'] },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
  },
} as const satisfies JsonSchema;

export const WebhookEndpointList = {
  type: 'object',
  required: ['triggers', 'next_before'],
  properties: {
    triggers: { type: 'array', items: WebhookEndpoint },
    next_before: {
      type: ['string', 'null'],
      description: 'Pass as `before` for the next page; null on the last page.',
    },
  },
} as const satisfies JsonSchema;

const Body = {
  type: ['string', 'null'],
  description: 'At most 4096 bytes are kept.',
} as const satisfies JsonSchema;

export const Delivery = {
  type: 'object',
  required: ['id', 'trigger_id', 'event_id', 'attempt', 'status', 'created_at'],
  properties: {
    id: { type: 'string', pattern: '^[0-9]{1,19}$' },
    trigger_id: TriggerId,
    event_id: { type: 'string' },
    attempt: { type: 'integer', minimum: 1 },
    status: {
      enum: ['pending', 'delivered', 'failed', 'dead'],
      description:
        '`failed`: this attempt failed and the next one is scheduled; `dead`: the last allowed attempt failed.',
    },
    created_at: Timestamp,
    chain_id: {
      type: 'string',
      description: 'The first delivery of this attempt chain (its workflow is `delivery/<chain_id>`).',
    },
    origin: { enum: ['dispatch', 'redeliver', 'replay', 'test'] },
    redelivery_of: { type: ['string', 'null'] },
    scheduled_at: { ...Timestamp, description: 'When the attempt is (or was) due.' },
    waiting_for_endpoint: {
      type: 'boolean',
      description: 'A pending attempt held until its endpoint is active again.',
    },
    attempted_at: { anyOf: [Timestamp, { type: 'null' }] },
    duration_ms: { type: ['integer', 'null'] },
    error: {
      type: ['string', 'null'],
      description:
        '`timeout`, `connection_failed`, `dns_failed`, `tls_failed`, `address_refused`, `redirect_not_followed`, `gone`, `http_<status>`, `endpoint_not_active`.',
    },
    request: {
      type: ['object', 'null'],
      properties: {
        url: { type: 'string' },
        headers: { type: 'object', additionalProperties: { type: 'string' } },
        body: Body,
        body_truncated: { type: 'boolean' },
      },
    },
    response: {
      type: ['object', 'null'],
      properties: {
        status: { type: 'integer' },
        headers: { type: 'object', additionalProperties: { type: 'string' } },
        body: Body,
        body_truncated: { type: 'boolean' },
      },
    },
  },
} as const satisfies JsonSchema;

export const DeliveryListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'string', description: 'Clamped to 1..200; unparsable text falls back to 50.' },
  },
} as const satisfies JsonSchema;

export const DeliveryList = {
  type: 'object',
  required: ['deliveries'],
  properties: { deliveries: { type: 'array', items: Delivery, description: 'Newest first.' } },
} as const satisfies JsonSchema;

export const Redelivery = {
  type: 'object',
  required: ['redelivery_id', 'trigger_id', 'event_id', 'trigger_status'],
  properties: {
    redelivery_id: { type: 'string', description: 'The new pending delivery.' },
    trigger_id: TriggerId,
    event_id: { type: 'string' },
    trigger_status: {
      enum: ['active', 'paused', 'error'],
      description: 'When not `active`, the redelivery waits until the endpoint is reactivated.',
    },
  },
} as const satisfies JsonSchema;

export const RetryPendingReport = {
  type: 'object',
  required: ['scanned', 'redispatched', 'delivered', 'failed', 'dead'],
  properties: {
    scanned: {
      type: 'integer',
      description: 'Pending attempts looked at (at most 100 per call, oldest due first).',
    },
    redispatched: {
      type: 'integer',
      description: 'Attempts made now (attempts of inactive endpoints keep waiting).',
    },
    delivered: { type: 'integer' },
    failed: { type: 'integer', description: 'Failed with attempts remaining: the next one is scheduled.' },
    dead: { type: 'integer', description: 'Failed on the last allowed attempt.' },
  },
} as const satisfies JsonSchema;

export const TestFire = {
  type: 'object',
  required: ['delivery_id', 'event_id', 'trigger_id'],
  properties: { delivery_id: { type: 'string' }, event_id: { type: 'string' }, trigger_id: TriggerId },
} as const satisfies JsonSchema;
