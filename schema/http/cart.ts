// Cart connect: the start answers (meli; ifood adds checkout_supported and note) and the finish.
import type { JsonSchema } from './json-schema';
import { Timestamp } from './common';

const started = {
  context_id: { type: 'string', description: "The browser worker's context holding the login." },
  session_id: { type: 'string' },
  live_view_url: {
    type: 'string',
    description: 'Where the person signs in; may be an empty string when the worker offers no live view.',
  },
} as const satisfies Record<string, JsonSchema>;

export const MeliConnectStarted = {
  type: 'object',
  required: ['merchant', 'context_id', 'session_id', 'live_view_url'],
  properties: { merchant: { const: 'meli' }, ...started },
} as const satisfies JsonSchema;

export const IfoodConnectStarted = {
  type: 'object',
  required: ['merchant', 'context_id', 'session_id', 'live_view_url', 'checkout_supported', 'note'],
  properties: {
    merchant: { const: 'ifood' },
    ...started,
    checkout_supported: { const: false },
    note: { type: 'string' },
  },
} as const satisfies JsonSchema;

export const ConnectFinishParams = {
  type: 'object',
  required: ['merchant'],
  properties: { merchant: { enum: ['meli', 'ifood'] } },
} as const satisfies JsonSchema;

export const ConnectFinish = {
  type: 'object',
  additionalProperties: false,
  required: ['context_id'],
  properties: { context_id: { type: 'string', minLength: 1, maxLength: 200 } },
} as const satisfies JsonSchema;

export const ConnectFinished = {
  type: 'object',
  required: ['merchant', 'context_id', 'status', 'connected_at'],
  properties: {
    merchant: { enum: ['meli', 'ifood'] },
    context_id: { type: 'string' },
    status: { const: 'connected' },
    connected_at: Timestamp,
  },
} as const satisfies JsonSchema;
