// The deprecated KYC onboarding status poll: its query and its answer.
import type { JsonSchema } from './json-schema';

export const KycStatusParams: JsonSchema = {
  type: 'object',
  required: ['proposalId'],
  properties: { proposalId: { type: 'string', minLength: 1, maxLength: 128 } },
};

export const KycStatusQuery: JsonSchema = {
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
};
export interface KycStatusQueryValues {
  document_number: string;
  consumer_id?: string;
}

const nullableString = { type: ['string', 'null'] };

export const KycStatus: JsonSchema = {
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
};
