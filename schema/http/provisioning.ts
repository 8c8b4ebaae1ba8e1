// Provisioning runs (a sandbox account opened at a catalog provider for a test project): request schemas
// (validated, their types derived from them) and response schemas (documented).
import type { JsonSchema, SchemaValue } from './json-schema';
import { Timestamp } from './common';
import { ProviderSlug } from './providers';

const Nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });
const RUN_ID_PATTERN = '^prun_[0-9a-z]{26}$';
const STATUSES = ['running', 'awaiting_verification', 'succeeded', 'failed', 'canceled', 'expired'] as const;

export const ProvisioningRunCreate = {
  type: 'object',
  additionalProperties: false,
  required: ['email'],
  properties: {
    email: {
      type: 'string',
      format: 'email',
      maxLength: 254,
      description: "The sign-up's contact at the provider, where it sends the verification code.",
    },
    label: {
      type: 'string',
      minLength: 1,
      maxLength: 120,
      description: 'The label of the connection the run stores (and the company name given to the provider).',
    },
  },
} as const satisfies JsonSchema;
export type ProvisioningRunCreateBody = SchemaValue<typeof ProvisioningRunCreate>;

export const ProvisioningCode = {
  type: 'object',
  additionalProperties: false,
  required: ['code'],
  properties: {
    code: {
      type: 'string',
      pattern: '^[0-9]{4,10}$',
      description: "The verification code the provider sent to the run's `email`.",
    },
  },
} as const satisfies JsonSchema;

export const ProvisioningRunParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 200 } },
} as const satisfies JsonSchema;

export const ProvisioningRunListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    provider: ProviderSlug,
    status: { enum: STATUSES },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
    starting_after: {
      type: 'string',
      pattern: RUN_ID_PATTERN,
      description: 'Cursor: the last run id of the previous page.',
    },
  },
} as const satisfies JsonSchema;

export const ProvisioningRun: JsonSchema = {
  type: 'object',
  required: [
    'id',
    'object',
    'provider',
    'method',
    'environment',
    'status',
    'email',
    'label',
    'verification',
    'connection_id',
    'failure',
    'created_at',
    'updated_at',
    'finished_at',
  ],
  properties: {
    id: { type: 'string', pattern: RUN_ID_PATTERN },
    object: { const: 'provisioning_run' },
    provider: ProviderSlug,
    method: { enum: ['signup_api'], description: "How the account is opened: the provider's sign-up API." },
    environment: { const: 'test' },
    status: {
      enum: [...STATUSES],
      description:
        '`running` while the gateway talks to the provider; `awaiting_verification` while it waits for the code the provider sent ' +
        '(send it to `POST /v1/provisioning-runs/{id}/verification` before `verification.expires_at`); then one of ' +
        '`succeeded` (the credential is the connection `connection_id`), `failed` (`failure` says why), `canceled` or `expired` ' +
        '(no code came in time).',
    },
    email: { type: 'string' },
    label: Nullable({ type: 'string' }),
    verification: Nullable({
      type: 'object',
      required: ['sent_to', 'expires_at'],
      properties: {
        sent_to: { type: 'string', description: 'Where the provider sent the code, masked by the provider.' },
        expires_at: Timestamp,
      },
    }),
    connection_id: Nullable({
      type: 'string',
      description:
        'The connection holding the issued credential, once `succeeded`; check it with verify-connection.',
    }),
    failure: Nullable({
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: {
          type: 'string',
          description:
            '`signup_refused` (the provider said no; `message` has its words), `provider_unavailable` (no answer after several tries) or `provider_protocol` (an answer outside the sign-up protocol). The last two count toward quarantining the provider.',
        },
        message: { type: 'string' },
      },
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
    finished_at: Nullable(Timestamp),
  },
};

export const ProvisioningRunList: JsonSchema = {
  type: 'object',
  required: ['runs', 'has_more'],
  properties: { runs: { type: 'array', items: ProvisioningRun }, has_more: { type: 'boolean' } },
};

export const ProvisioningRunHistory: JsonSchema = {
  type: 'object',
  required: ['run_id', 'steps'],
  properties: {
    run_id: { type: 'string', pattern: RUN_ID_PATTERN },
    steps: {
      type: 'array',
      description: 'Every step of the run, oldest first. No step holds a credential or a code.',
      items: {
        type: 'object',
        required: ['step', 'detail', 'at'],
        properties: {
          step: {
            type: 'string',
            description:
              '`run.created`, `signup.requested`, `signup.created`, `signup.unavailable`, `signup.refused`, `verification.sent`, ' +
              '`verification.accepted`, `verification.invalid`, `verification.expired`, `api_key.issued`, `connection.stored`, ' +
              '`run.succeeded`, `run.failed`, `run.canceled`, `run.expired`, `provider.quarantined`, and `<step>.unavailable`, ' +
              '`<step>.refused`, `<step>.protocol_error` for a provider call that failed.',
          },
          detail: { type: 'object', description: 'What the step learned.' },
          at: Timestamp,
        },
      },
    },
  },
};
