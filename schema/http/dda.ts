// DDA (boletos owed): the registration body, the registration and boleto shapes, and the listing query.
import type { JsonSchema } from './json-schema';

export const DdaSubscriptionCreate: JsonSchema = {
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
};
export interface DdaSubscriptionCreateBody {
  document: string;
  idempotency_key: string;
  client_name?: string;
}

const status = { enum: ['pending', 'active', 'error', 'deleted'] };

export const DdaSubscriptionRegistered: JsonSchema = {
  type: 'object',
  required: ['document', 'status', 'client_request_id', 'mandate_id', 'replayed'],
  properties: {
    document: { type: 'string', description: 'Digits only, as signed in the mandate allowlist.' },
    status,
    client_request_id: { type: 'string' },
    mandate_id: { type: 'string' },
    replayed: { type: 'boolean', description: 'True when this call registered nothing.' },
  },
};

export const DdaSubscription: JsonSchema = {
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
};

export const DdaSubscriptionDeleted: JsonSchema = {
  type: 'object',
  required: ['document', 'status'],
  properties: { document: { type: 'string' }, status: { const: 'deleted' } },
};

export const DdaDocumentParams: JsonSchema = {
  type: 'object',
  required: ['consumerId', 'document'],
  properties: {
    consumerId: { type: 'string', minLength: 1, maxLength: 64 },
    document: { type: 'string', minLength: 1, maxLength: 32 },
  },
};

const DATE = { type: 'string', format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD' };

export const DdaBoletoQuery: JsonSchema = {
  type: 'object',
  required: ['from_date', 'to_date'],
  additionalProperties: false,
  properties: { from_date: DATE, to_date: DATE },
};
export interface DdaBoletoQueryInput {
  from_date: string;
  to_date: string;
}

export const DdaBoletoList: JsonSchema = {
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
};
