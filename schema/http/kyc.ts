// The deprecated KYC onboarding status poll: its query and its answer.
import type { JsonSchema, SchemaValue } from './json-schema';

export const KycStatusParams = {
  type: 'object',
  required: ['proposalId'],
  properties: { proposalId: { type: 'string', minLength: 1, maxLength: 128 } },
} as const satisfies JsonSchema;

export const KycStatusQuery = {
  type: 'object',
  required: ['document_number'],
  properties: {
    document_number: {
      type: 'string',
      minLength: 1,
      maxLength: 32,
      pattern: '[0-9]',
      description:
        "A claim: the CPF or CNPJ of the proposal's verified document (punctuation ignored, so it holds at least one digit); a different one is refused before the provider is asked.",
    },
    consumer_id: {
      type: 'string',
      minLength: 1,
      maxLength: 128,
      description: 'The consumer the approved account funds, used only when the proposal recorded none.',
    },
  },
} as const satisfies JsonSchema;
export type KycStatusQueryValues = SchemaValue<typeof KycStatusQuery>;

const nullableString = { type: ['string', 'null'] } as const satisfies JsonSchema;

export const KycStatus = {
  type: 'object',
  required: ['status', 'account', 'funding_source_id', 'hosted_url', 'pix_key', 'pix_key_type'],
  properties: {
    status: { enum: ['pending', 'documentscopy_pending', 'approved', 'rejected', null] },
    account: nullableString,
    funding_source_id: nullableString,
    hosted_url: { ...nullableString, description: 'Where the holder finishes the document check.' },
    pix_key: nullableString,
    pix_key_type: nullableString,
    pix_key_registration_error: {
      type: 'string',
      description:
        'Present when the account is real and usable but its Pix key could not be registered; the next poll retries it.',
    },
  },
} as const satisfies JsonSchema;

// KYC onboarding: starting one for a consumer, and reading it (the deprecated poll's replacement).
export const KycOnboardingCreate = {
  type: 'object',
  additionalProperties: false,
  required: ['consumer_id', 'document_number', 'name'],
  properties: {
    consumer_id: {
      type: 'string',
      pattern: '^cns_[0-9A-Za-z]{16}$',
      description: 'The consumer the account is opened for; it must not hold another verified document.',
    },
    document_number: {
      type: 'string',
      minLength: 11,
      maxLength: 18,
      pattern: '^[0-9./ -]+$',
      description:
        "The applicant's CPF or CNPJ (punctuation ignored); its check digits must match, as for every consumer document.",
    },
    name: {
      type: 'string',
      minLength: 1,
      maxLength: 120,
      description: 'The full name, as on the document.',
    },
    birth_date: { type: 'string', format: 'date', description: 'For a person (CPF).' },
    email: { type: 'string', format: 'email', maxLength: 254 },
    phone: { type: 'string', pattern: '^\\+[1-9][0-9]{7,14}$', description: 'E.164, e.g. `+5511987654321`.' },
  },
} as const satisfies JsonSchema;
/** The start's body, typed from the schema that validates it. */
export type KycOnboardingCreateBody = SchemaValue<typeof KycOnboardingCreate>;

export const KycOnboardingParams = {
  type: 'object',
  required: ['proposalId'],
  properties: { proposalId: { type: 'string', minLength: 1, maxLength: 128 } },
} as const satisfies JsonSchema;

export const KycOnboarding = {
  type: 'object',
  required: [
    'id',
    'consumer_id',
    'status',
    'hosted_url',
    'account',
    'funding_source_id',
    'pix_key',
    'pix_key_type',
    'pix_key_registration_error',
    'rejection_reason',
    'document_verified',
    'created_at',
    'updated_at',
  ],
  properties: {
    id: { type: 'string', description: "The provider's proposal id." },
    consumer_id: nullableString,
    status: { enum: ['pending', 'documentscopy_pending', 'approved', 'rejected'] },
    hosted_url: {
      ...nullableString,
      description: 'While `documentscopy_pending`: where the holder finishes the document check.',
    },
    account: {
      ...nullableString,
      description: 'Once approved: the account opened at the bank (`branch/number`).',
    },
    funding_source_id: {
      ...nullableString,
      description: "Once approved: the consumer's one `pix-partner` funding source for the account.",
    },
    pix_key: nullableString,
    pix_key_type: nullableString,
    pix_key_registration_error: {
      ...nullableString,
      description:
        'Set while an approved account has no Pix key because its registration failed; the account is usable and the registration is retried on its own schedule.',
    },
    rejection_reason: { ...nullableString, description: "Once rejected: the provider's reason." },
    document_verified: {
      type: 'boolean',
      description: "Whether the approval marked the consumer's document verified.",
    },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
} as const satisfies JsonSchema;
