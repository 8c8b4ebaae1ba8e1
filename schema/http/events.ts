// Events: the payload receivers get and GET /v1/events returns, the catalog of types, and the replay answer.
import {
  EVENT_TYPES,
  catalogMarkdown,
  describeEventType,
  type EventType,
} from '../../contracts/event-catalog';
import { Timestamp } from './common';
import type { JsonSchema } from './json-schema';

/** An enum of catalog types with one description per value (`x-enum-descriptions`, read by common generators). */
export function eventTypeEnum(types: readonly EventType[], description: string) {
  return {
    type: 'string',
    enum: [...types],
    'x-enum-descriptions': types.map(describeEventType),
    description,
  } as const satisfies JsonSchema;
}

export const Event = {
  type: 'object',
  required: ['id', 'type', 'created_at', 'project_id', 'environment', 'data'],
  description:
    'An event, exactly as a webhook receiver gets it in the request body. Headers (Standard Webhooks): `webhook-id` (the event id, the same on every retry, ' +
    'redelivery and replay, so receivers can deduplicate), `webhook-timestamp` (unix seconds of the attempt) and `webhook-signature` (`v1,<base64>`).\n\n' +
    catalogMarkdown(),
  properties: {
    id: { type: 'string', pattern: '^evt_[0-9a-z]{26}$' },
    type: eventTypeEnum(EVENT_TYPES, 'A type from the event catalog (`GET /v1/event-types`).'),
    created_at: Timestamp,
    project_id: { type: 'string' },
    environment: { enum: ['live', 'test'] },
    data: { description: 'The state change; bigint quantities as decimal strings.' },
  },
} as const satisfies JsonSchema;

export const EventTypeList = {
  type: 'object',
  required: ['event_types'],
  properties: {
    event_types: {
      type: 'array',
      items: {
        type: 'object',
        required: ['type', 'area', 'description', 'subscribable', 'reserved'],
        properties: {
          type: { type: 'string' },
          area: { type: 'string', description: 'The part of the gateway that writes it.' },
          description: { type: 'string' },
          subscribable: {
            type: 'boolean',
            description:
              'Whether a webhook endpoint may subscribe to it (the test-fire goes only to its own endpoint).',
          },
          reserved: {
            type: 'boolean',
            description:
              'Named by the interface and subscribable, but written by capabilities still being built.',
          },
        },
      },
    },
  },
} as const satisfies JsonSchema;

export const EventListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    type: { type: 'string', minLength: 1, maxLength: 128 },
    before: {
      type: 'string',
      pattern: '^evt_[0-9a-z]{26}$',
      description: 'Cursor: the `next_before` of the previous page.',
    },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
  },
} as const satisfies JsonSchema;

export const EventList = {
  type: 'object',
  required: ['events', 'next_before'],
  properties: {
    events: { type: 'array', items: Event, description: 'Newest first.' },
    next_before: { type: ['string', 'null'] },
  },
} as const satisfies JsonSchema;

export const ReplayQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    trigger_id: {
      type: 'string',
      minLength: 1,
      maxLength: 64,
      description: 'Replay to this endpoint only; without it, to every active subscriber.',
    },
  },
} as const satisfies JsonSchema;

export const Replay = {
  type: 'object',
  required: ['event_id', 'dispatched', 'trigger_id'],
  properties: {
    event_id: { type: 'string' },
    dispatched: {
      type: 'integer',
      description: 'Delivery chains started; the answer comes before any receiver does.',
    },
    trigger_id: { type: ['string', 'null'] },
  },
} as const satisfies JsonSchema;

/** OpenAPI 3.1 `webhooks`: what the gateway sends to a receiver. */
export const webhookDocuments: Record<string, JsonSchema> = {
  event: {
    post: {
      summary: 'An event delivered to a webhook endpoint',
      description:
        'Sent to every active endpoint subscribed to the event type. A 2xx answer within 15 seconds is delivered; 410 Gone pauses the endpoint; ' +
        'redirects are not followed; anything else is retried on the schedule (immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h by default), ' +
        'after which the delivery is dead. 429 and 503 with Retry-After slow the next attempt.',
      parameters: [
        { name: 'webhook-id', in: 'header', required: true, schema: { type: 'string' } },
        {
          name: 'webhook-timestamp',
          in: 'header',
          required: true,
          schema: { type: 'string', pattern: '^[0-9]+$' },
        },
        {
          name: 'webhook-signature',
          in: 'header',
          required: false,
          schema: { type: 'string', pattern: '^v1,' },
        },
      ],
      requestBody: { required: true, content: { 'application/json': { schema: Event } } },
      responses: { '200': { description: 'Any 2xx marks the delivery delivered.' } },
    },
  },
};
