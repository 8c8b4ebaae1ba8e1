// DDA (boletos owed): the registration body, the registration and boleto shapes, and the listing query.
import type { JsonSchema, SchemaValue } from './json-schema';

export const DdaSubscriptionCreate = {
  type: 'object',
  additionalProperties: false,
  required: ['document', 'idempotency_key'],
  properties: {
    document: {
      type: 'string',
      minLength: 1,
      maxLength: 32,
      description:
        'A CPF (11 digits) or CNPJ (14 digits) with valid check digits; dots, dashes and slashes are stripped.',
    },
    idempotency_key: {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      pattern: '\\S',
      description: 'Non-blank. The same key for the same document answers the same registration.',
    },
    client_name: { type: 'string', minLength: 1, maxLength: 140, description: 'Shown by the provider.' },
  },
} as const satisfies JsonSchema;

export type DdaSubscriptionCreateBody = SchemaValue<typeof DdaSubscriptionCreate>;

const status = { enum: ['pending', 'active', 'error', 'deleted'] } as const satisfies JsonSchema;

export const DdaSubscriptionRegistered = {
  type: 'object',
  required: ['document', 'status', 'client_request_id', 'mandate_id', 'replayed'],
  properties: {
    document: { type: 'string', description: 'Digits only, as signed in the mandate allowlist.' },
    status,
    client_request_id: { type: 'string' },
    mandate_id: { type: 'string' },
    replayed: { type: 'boolean', description: 'True when this call registered nothing.' },
  },
} as const satisfies JsonSchema;

export const DdaSubscription = {
  type: 'object',
  required: ['document', 'status', 'client_request_id', 'provider_subscription_id'],
  properties: {
    document: { type: 'string' },
    status,
    client_request_id: { type: 'string' },
    provider_subscription_id: {
      type: ['string', 'null'],
      description: "The provider's id, null until its confirmation webhook arrives.",
    },
  },
} as const satisfies JsonSchema;

export const DdaSubscriptionDeleted = {
  type: 'object',
  required: ['document', 'status'],
  properties: { document: { type: 'string' }, status: { const: 'deleted' } },
} as const satisfies JsonSchema;

export const DdaDocumentParams = {
  type: 'object',
  required: ['consumerId', 'document'],
  properties: {
    consumerId: { type: 'string', minLength: 1, maxLength: 64 },
    document: { type: 'string', minLength: 1, maxLength: 32 },
  },
} as const satisfies JsonSchema;

const DATE = {
  type: 'string',
  format: 'date',
  pattern: '^\\d{4}-\\d{2}-\\d{2}$',
  description: 'YYYY-MM-DD',
} as const satisfies JsonSchema;

export const DdaBoletoQuery = {
  type: 'object',
  required: ['from_date', 'to_date'],
  additionalProperties: false,
  properties: { from_date: DATE, to_date: DATE },
} as const satisfies JsonSchema;

export const DdaBoletoList = {
  type: 'object',
  required: ['from_date', 'to_date', 'count', 'boletos'],
  properties: {
    from_date: { type: 'string' },
    to_date: { type: 'string' },
    count: { type: 'integer' },
    boletos: {
      type: 'array',
      items: {
        type: 'object',
        required: ['linha_digitavel', 'status'],
        properties: {
          linha_digitavel: { type: 'string', description: 'Digits only; its check digits verified.' },
          status: { enum: ['open', 'paid'] },
          document: { type: 'string', description: 'The registered payer document that owes it.' },
          amount_minor: { type: ['string', 'null'] },
          due_date: { type: ['string', 'null'] },
          beneficiary_name: { type: ['string', 'null'] },
        },
      },
    },
  },
} as const satisfies JsonSchema;
