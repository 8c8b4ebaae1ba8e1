// Shapes shared by every resource: the error envelope, the spec's flat error bodies, ids and timestamps.
import type { JsonSchema } from './json-schema';

export const Timestamp = { type: 'string', format: 'date-time' } as const satisfies JsonSchema;
export const BigintString = {
  type: 'string',
  pattern: '^-?[0-9]+$',
  description: 'A bigint quantity as a decimal string.',
} as const satisfies JsonSchema;
export const Metadata = {
  type: 'object',
  additionalProperties: true,
  description: 'Free-form key-value data.',
} as const satisfies JsonSchema;

export const ErrorEnvelope = {
  type: 'object',
  required: ['error', 'request_id'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: {
          type: 'string',
          description: 'Stable machine-readable code; branch on this, never on the message.',
        },
        message: { type: 'string' },
        details: {
          type: 'object',
          additionalProperties: true,
          description: 'Per-error details; validation errors list `issues`.',
        },
      },
    },
    request_id: { type: 'string', description: 'Equals the X-Request-Id response header.' },
  },
} as const satisfies JsonSchema;

export const Unauthorized = {
  type: 'object',
  required: ['error'],
  properties: { error: { const: 'unauthorized' } },
  description: 'Missing, malformed, revoked or environment-mismatched credential.',
} as const satisfies JsonSchema;

export const ForbiddenScope = {
  type: 'object',
  required: ['error', 'message', 'status'],
  properties: { error: { const: 'forbidden' }, message: { type: 'string' }, status: { const: 403 } },
  description: 'The key lacks the scope this operation requires (the message names it).',
} as const satisfies JsonSchema;
