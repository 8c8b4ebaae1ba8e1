// Payment links: request schemas (validated) and response schemas (documented). The accept rules the
// schema cannot say (a rail twice, a pay_to that names no destination) are checked in
// domain/payment-links/accepts.ts, so they answer their own codes instead of `invalid_body`.
import { Metadata, Timestamp } from './common';
import { Nullable, type JsonSchema, type SchemaValue } from './json-schema';

const Slug = {
  type: 'string',
  pattern: '^[a-z0-9][a-z0-9_-]{2,63}$',
  description:
    'Lowercase letters, digits, `_` and `-`, 3..64 characters, unique across every account (the pay URL carries no tenant).',
} as const satisfies JsonSchema;
// A decimal amount above zero: no sign, no exponent; the rail bounds the decimals (USDC 6, BRL 2).
const amount = (decimals: number, description: string) =>
  ({
    type: 'string',
    pattern: `^(?![0.]*$)[0-9]{1,12}(\\.[0-9]{1,${decimals}})?$`,
    description,
  }) as const satisfies JsonSchema;

const X402Accept = {
  type: 'object',
  required: ['rail', 'amount', 'currency', 'pay_to'],
  additionalProperties: false,
  properties: {
    rail: { const: 'x402' },
    amount: amount(6, 'Decimal USDC, up to 6 decimals, greater than zero.'),
    currency: { const: 'USDC' },
    pay_to: {
      type: 'object',
      required: ['kind'],
      additionalProperties: false,
      properties: {
        kind: { enum: ['provisioned', 'byo'] },
        consumer_id: {
          type: 'string',
          minLength: 1,
          maxLength: 128,
          description: '`provisioned`: the consumer whose provisioned wallet receives the USDC.',
        },
        address: { type: 'string', maxLength: 128, description: '`byo`: a 0x EVM address.' },
      },
    },
  },
} as const satisfies JsonSchema;

const PixAccept = {
  type: 'object',
  required: ['rail', 'amount', 'currency', 'pix'],
  additionalProperties: false,
  properties: {
    rail: { const: 'pix' },
    amount: amount(2, 'Decimal BRL, up to 2 decimals, greater than zero.'),
    currency: { const: 'BRL' },
    pix: {
      type: 'object',
      additionalProperties: false,
      properties: {
        key: {
          type: 'string',
          maxLength: 77,
          description: 'A DICT key: CPF, CNPJ, email, +55 phone or EVP.',
        },
        partner_account: {
          type: 'string',
          maxLength: 128,
          description: 'The partner account that receives the Pix.',
        },
      },
    },
  },
} as const satisfies JsonSchema;

// What PostgreSQL's timestamptz can hold: years 0001-9999 and real UTC offsets (-12:00..+14:00).
const LinkTimestamp = {
  ...Timestamp,
  pattern: '^(?!0000)[0-9]{4}-.*([Zz]|[+-](0[0-9]|1[0-4]):[0-5][0-9])$',
} as const satisfies JsonSchema;
const RedirectUrl = { type: 'string', format: 'uri', maxLength: 2048 } as const satisfies JsonSchema;

export const PaymentLinkCreate = {
  type: 'object',
  required: ['accepts', 'title'],
  additionalProperties: false,
  properties: {
    accepts: {
      type: 'array',
      minItems: 1,
      maxItems: 8,
      items: { oneOf: [X402Accept, PixAccept] },
      description: 'At least one Accept; each rail at most once.',
    },
    title: { type: 'string', minLength: 1, maxLength: 200 },
    description: Nullable({ type: 'string', maxLength: 2000 }),
    slug: Slug,
    one_time: { type: 'boolean', description: 'Closes (status `paid`) after the first successful payment.' },
    max_uses: { type: 'integer', minimum: 1, maximum: 1_000_000_000 },
    expires_at: Nullable(LinkTimestamp),
    redirect_url: Nullable(RedirectUrl),
    metadata: Metadata,
  },
} as const satisfies JsonSchema;

export type PaymentLinkCreateBody = SchemaValue<typeof PaymentLinkCreate>;

export const PaymentLinkUpdate = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  description: '`accepts` cannot be edited.',
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 200 },
    description: Nullable({ type: 'string', maxLength: 2000 }),
    active: {
      type: 'boolean',
      description: '`false` pauses the link (it cannot be paid); `true` resumes it.',
    },
    expires_at: Nullable(LinkTimestamp),
    redirect_url: Nullable(RedirectUrl),
  },
} as const satisfies JsonSchema;

const AcceptView = {
  type: 'object',
  required: ['rail', 'currency', 'amount_atomic', 'pay_to', 'pay_to_kind'],
  properties: {
    rail: { enum: ['x402', 'pix'] },
    currency: { enum: ['USDC', 'BRL'] },
    amount_atomic: {
      type: 'string',
      pattern: '^[0-9]+$',
      description: "The amount in the currency's smallest unit (USDC 10^-6, BRL centavos).",
    },
    pay_to: { type: 'string' },
    pay_to_kind: { enum: ['byo', 'provisioned'] },
  },
} as const satisfies JsonSchema;

export const PaymentLink = {
  type: 'object',
  required: [
    'id',
    'project_id',
    'slug',
    'title',
    'description',
    'pay_url',
    'accepts',
    'environment',
    'one_time',
    'status',
    'use_count',
    'max_uses',
    'expires_at',
    'redirect_url',
    'active',
    'created_at',
  ],
  properties: {
    id: { type: 'string', pattern: '^pl_' },
    project_id: { type: 'string' },
    slug: { type: 'string' },
    title: { type: 'string' },
    description: { type: ['string', 'null'] },
    pay_url: { type: 'string', format: 'uri' },
    accepts: { type: 'array', items: AcceptView },
    environment: { enum: ['live', 'test'] },
    one_time: { type: 'boolean' },
    status: { enum: ['active', 'paid', 'expired', 'void'] },
    use_count: { type: 'integer' },
    max_uses: { type: ['integer', 'null'] },
    expires_at: Nullable(LinkTimestamp),
    redirect_url: { type: ['string', 'null'] },
    active: { type: 'boolean' },
    created_at: Timestamp,
    metadata: Metadata,
  },
} as const satisfies JsonSchema;

export const PaymentLinkList = {
  type: 'object',
  required: ['payment_links'],
  properties: { payment_links: { type: 'array', items: PaymentLink } },
} as const satisfies JsonSchema;
