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
};

export const MeliConnectStarted: JsonSchema = {
  type: 'object',
  required: ['merchant', 'context_id', 'session_id', 'live_view_url'],
  properties: { merchant: { const: 'meli' }, ...started },
};

export const IfoodConnectStarted: JsonSchema = {
  type: 'object',
  required: ['merchant', 'context_id', 'session_id', 'live_view_url', 'checkout_supported', 'note'],
  properties: {
    merchant: { const: 'ifood' },
    ...started,
    checkout_supported: { const: false },
    note: { type: 'string' },
  },
};

export const ConnectFinishParams: JsonSchema = {
  type: 'object',
  required: ['merchant'],
  properties: { merchant: { enum: ['meli', 'ifood'] } },
};

export const ConnectFinish: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['context_id'],
  properties: { context_id: { type: 'string', minLength: 1, maxLength: 200 } },
};
export interface ConnectFinishBody {
  context_id: string;
}

export const ConnectFinished: JsonSchema = {
  type: 'object',
  required: ['merchant', 'context_id', 'status', 'connected_at'],
  properties: {
    merchant: { enum: ['meli', 'ifood'] },
    context_id: { type: 'string' },
    status: { const: 'connected' },
    connected_at: Timestamp,
  },
};
