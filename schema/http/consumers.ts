// Consumers, their wallet roll-up and consent records: request schemas (validated) and responses (documented).
import type { JsonSchema } from './json-schema';
import { Timestamp } from './common';

const MetadataSchema = {
  type: 'object',
  maxProperties: 50,
  propertyNames: { minLength: 1, maxLength: 40 },
  additionalProperties: true,
  description:
    'Free-form key-value data (up to 50 keys of 40 characters). On PATCH, keys merge and a key set to null is removed.',
} as const satisfies JsonSchema;

export const Consumer = {
  type: 'object',
  required: [
    'id',
    'display_name',
    'document',
    'document_source',
    'document_verified_at',
    'person_type',
    'tax_type',
    'status',
    'metadata',
    'created_at',
  ],
  properties: {
    id: { type: 'string', pattern: '^cns_[0-9A-Za-z]{16}$' },
    display_name: { type: ['string', 'null'] },
    document: { type: ['string', 'null'], description: 'CPF or CNPJ, digits only, once verified.' },
    document_source: {
      type: ['string', 'null'],
      description: 'Where the document came from, e.g. `partner_attestation`.',
    },
    document_verified_at: { anyOf: [Timestamp, { type: 'null' }] },
    person_type: { type: ['string', 'null'], enum: ['natural', 'legal', null] },
    tax_type: { type: ['string', 'null'], enum: ['PJ', 'MEI', 'ME', 'PF', null] },
    status: { enum: ['unverified', 'verified'] },
    metadata: { type: 'object' },
    created_at: Timestamp,
  },
} as const satisfies JsonSchema;

export const ConsumerCreate = {
  type: 'object',
  additionalProperties: false,
  properties: {
    display_name: { type: ['string', 'null'], minLength: 1, maxLength: 120 },
    metadata: MetadataSchema,
  },
} as const satisfies JsonSchema;

export const ConsumerPatch = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    display_name: { type: ['string', 'null'], minLength: 1, maxLength: 120 },
    metadata: MetadataSchema,
    tax_type: { enum: ['PJ', 'MEI', 'ME', 'PF'] },
  },
} as const satisfies JsonSchema;

export const ConsumerListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
    verified: { type: 'boolean' },
  },
} as const satisfies JsonSchema;

export const ConsumerList = {
  type: 'object',
  required: ['consumers'],
  properties: { consumers: { type: 'array', items: Consumer, description: 'Newest first.' } },
} as const satisfies JsonSchema;

export const ConsumerWallet = {
  type: 'object',
  required: ['consumer_id', 'currencies'],
  properties: {
    consumer_id: { type: 'string' },
    currencies: {
      type: 'array',
      items: {
        type: 'object',
        required: [
          'currency',
          'authorized_minor',
          'spent_minor',
          'available_minor',
          'overspent',
          'funding_source_ids',
          'mandate_ids',
        ],
        properties: {
          currency: { type: 'string' },
          authorized_minor: {
            type: 'integer',
            description: "Caps of the consumer's active mandates in this currency.",
          },
          spent_minor: { type: 'integer', description: 'Spent under those mandates.' },
          available_minor: { type: 'integer', description: 'authorized − spent, never below zero.' },
          overspent: { type: 'boolean' },
          funding_source_ids: { type: 'array', items: { type: 'string' } },
          mandate_ids: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
} as const satisfies JsonSchema;

export const ConsentRecord = {
  type: 'object',
  required: [
    'id',
    'consumer_id',
    'kind',
    'agent_id',
    'funding_source_id',
    'purpose',
    'currency',
    'cap_minor',
    'per_tx_cap_minor',
    'expires_at',
    'hmac_secret_version',
    'ip_address',
    'metadata',
    'signed_at',
  ],
  properties: {
    id: { type: 'string', pattern: '^ccsnt_' },
    consumer_id: { type: 'string' },
    mandate_id: { type: ['string', 'null'] },
    kind: { enum: ['grant', 'revoke', 'amend'] },
    agent_id: { type: ['string', 'null'] },
    funding_source_id: { type: ['string', 'null'] },
    purpose: { type: ['string', 'null'] },
    currency: { type: ['string', 'null'] },
    cap_minor: { type: ['string', 'null'], pattern: '^[0-9]+$' },
    per_tx_cap_minor: { type: ['string', 'null'], pattern: '^[0-9]+$' },
    expires_at: { anyOf: [Timestamp, { type: 'null' }] },
    hmac_secret_version: { type: 'integer' },
    ip_address: { type: ['string', 'null'] },
    metadata: {
      type: 'object',
      description: 'Lifecycle rows carry `action`, `from`, `to` and an optional `reason`.',
    },
    signed_at: Timestamp,
  },
} as const satisfies JsonSchema;
