// Contact verification: start and verify bodies and the verification resource.
import type { JsonSchema } from './json-schema';
import { Timestamp } from './common';

export const ContactVerificationStart = {
  type: 'object',
  additionalProperties: false,
  required: ['channel', 'target'],
  properties: {
    channel: { enum: ['email', 'phone'] },
    target: {
      type: 'string',
      minLength: 1,
      maxLength: 320,
      description: 'An email address, or a phone number in E.164 form.',
    },
    locale: {
      type: 'string',
      pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$',
      default: 'pt-BR',
      description: 'Language of the message (BCP 47).',
    },
  },
} as const satisfies JsonSchema;

export const ContactVerificationCheck = {
  type: 'object',
  additionalProperties: false,
  required: ['code'],
  properties: {
    code: {
      type: 'string',
      maxLength: 64,
      description: '4..8 digits; anything else is `invalid_code` and spends no attempt.',
    },
    target: {
      type: 'string',
      minLength: 1,
      maxLength: 320,
      description: "Required when the verification's provider is `prelude`.",
    },
  },
} as const satisfies JsonSchema;

export const ContactVerification = {
  type: 'object',
  required: ['id', 'channel', 'target_masked', 'provider', 'expires_at', 'status', 'verified_at'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    channel: { enum: ['email', 'phone'] },
    target_masked: { type: 'string' },
    provider: { enum: ['dev', 'prelude', 'resend'] },
    expires_at: { ...Timestamp, description: 'May already be past when a later send superseded this one.' },
    status: { enum: ['sent', 'verified'] },
    verified_at: { anyOf: [Timestamp, { type: 'null' }] },
  },
} as const satisfies JsonSchema;

export const ContactVerified = {
  type: 'object',
  required: ['id', 'status', 'verified_at'],
  properties: { id: { type: 'string' }, status: { const: 'verified' }, verified_at: Timestamp },
} as const satisfies JsonSchema;
