// The deprecated issued-card read: a card (`icrd_`) or a mint flow (`imf_`).
import type { JsonSchema } from './json-schema';
import { Timestamp } from './common';

export const IssuerRecordParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 128 } },
} as const satisfies JsonSchema;

export const IssuedCard = {
  type: 'object',
  required: ['id', 'issuer', 'card_id', 'last4', 'network', 'status', 'created_at'],
  properties: {
    id: { type: 'string', pattern: '^icrd_' },
    issuer: { type: 'string' },
    card_id: { type: 'string', description: "The issuer's own id of the card." },
    last4: { type: 'string', pattern: '^[0-9]{4}$' },
    network: { type: 'string' },
    status: { type: 'string' },
    created_at: Timestamp,
  },
} as const satisfies JsonSchema;

export const MintFlow = {
  type: 'object',
  required: ['id', 'issuer', 'status', 'card_id', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'string', pattern: '^imf_' },
    issuer: { type: 'string' },
    status: { enum: ['pending', 'minted', 'failed'] },
    card_id: { type: ['string', 'null'], description: 'The `icrd_` card once minted.' },
    failure_reason: { type: ['string', 'null'] },
    created_at: Timestamp,
    updated_at: Timestamp,
  },
} as const satisfies JsonSchema;

/** What the card issuer sends (api/routes/issuer.ts reads the object by type). */
export const IssuerEvent = {
  type: 'object',
  required: ['id', 'type', 'data'],
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 255 },
    type: { type: 'string', minLength: 1, maxLength: 255 },
    sequence: { type: 'integer', minimum: 1, maximum: 1_000_000 },
    data: { type: 'object', required: ['object'], properties: { object: { type: 'object' } } },
  },
} as const satisfies JsonSchema;
