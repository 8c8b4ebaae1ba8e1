// Consent intents, tokens, the hosted page submit and its answer: request schemas (validated) and
// response schemas (documented). The parts the spec leaves open are designed here and documented.
import type { JsonSchema, SchemaValue } from './json-schema';
import { Timestamp } from './common';

export const CURRENCIES = ['BRL', 'USD', 'MXN', 'COP', 'ARS', 'USDC', 'BRLA'] as const;
export const MERCHANT_PIN_KINDS = ['exact', 'domain', 'pix_key', 'tax_id'] as const;
export const PERIODIC_WINDOWS = ['day', 'week', 'month'] as const;
export const SUBMIT_RAILS = ['pix-consent', 'pix-partner'] as const;

/** Caps stay well inside the integers JSON and JavaScript agree on, and inside bigint. */
export const MAX_MINOR = 10_000_000_000_000;
const Minor = {
  type: 'integer',
  minimum: 1,
  maximum: MAX_MINOR,
  description: "An amount in the currency's minor unit.",
} as const satisfies JsonSchema;
const CurrencySchema = { enum: [...CURRENCIES] } as const satisfies JsonSchema;
const AllowlistEntry = { type: 'string', minLength: 1, maxLength: 200 } as const satisfies JsonSchema;

export const DocumentNumber = {
  type: 'string',
  pattern: '^([0-9]{11}|[0-9]{14})$',
  description: 'A CPF (11 digits) or CNPJ (14 digits), digits only, with valid check digits.',
} as const satisfies JsonSchema;

export const Shipping = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'address'],
  description: 'Where goods bought under the mandate are delivered; signed into the mandate.',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 120 },
    phone: { type: 'string', pattern: '^\\+[1-9][0-9]{7,14}$' },
    address: {
      type: 'object',
      additionalProperties: false,
      required: ['line1', 'city', 'postal_code', 'country'],
      properties: {
        line1: { type: 'string', minLength: 1, maxLength: 200 },
        line2: { type: 'string', minLength: 1, maxLength: 200 },
        city: { type: 'string', minLength: 1, maxLength: 100 },
        state: { type: 'string', minLength: 1, maxLength: 100 },
        postal_code: { type: 'string', minLength: 1, maxLength: 20 },
        country: { type: 'string', pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2.' },
      },
    },
  },
} as const satisfies JsonSchema;

export const Intent = {
  type: 'object',
  additionalProperties: false,
  required: ['purpose', 'cap_minor', 'per_tx_cap_minor', 'currency', 'mandate_ttl_seconds'],
  properties: {
    purpose: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      description: 'What the mandate is for, shown to the consumer and signed.',
    },
    cap_minor: { ...Minor, description: 'Total the mandate authorizes over its life.' },
    per_tx_cap_minor: { ...Minor, description: 'Largest single payment; at most `cap_minor`.' },
    currency: CurrencySchema,
    mandate_ttl_seconds: {
      type: 'integer',
      minimum: 60,
      maximum: 31_536_000,
      description: 'Mandate lifetime, counted from the moment the consumer signs (1 minute to 365 days).',
    },
    merchant_allowlist: {
      type: 'array',
      items: AllowlistEntry,
      minItems: 1,
      maxItems: 100,
      uniqueItems: true,
      default: ['*'],
      description: 'Payees the mandate may pay; `*` is a wildcard bounded by caps, purpose and expiry.',
    },
    merchant_pin_kind: {
      enum: [...MERCHANT_PIN_KINDS],
      description:
        'How an allowlist entry is matched against a payee: exact string, domain, Pix key or tax id.',
    },
    withdrawal_allowlist: {
      type: 'array',
      minItems: 1,
      maxItems: 100,
      uniqueItems: true,
      items: {
        ...AllowlistEntry,
        pattern: '^[^*\\u0000]+$',
        description: 'A cash-out destination; wildcards are refused.',
      },
      description: 'Absent means no cash-out.',
    },
    dda_allowlist: {
      type: 'array',
      minItems: 1,
      maxItems: 100,
      uniqueItems: true,
      items: DocumentNumber,
      description: 'Documents whose boletos may be registered for DDA; absent means none. `*` is refused.',
    },
    periodic_cap: {
      type: 'object',
      additionalProperties: false,
      required: ['window', 'cap_minor'],
      properties: { window: { enum: [...PERIODIC_WINDOWS] }, cap_minor: Minor },
      description: 'A rolling cap per calendar window (UTC), at most `cap_minor`.',
    },
    slots: {
      type: 'array',
      maxItems: 14,
      description:
        "Per-currency and per-rail sub-caps. A slot in the intent's own currency narrows it; a slot in another currency authorizes that currency.",
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['currency', 'rail', 'cap_minor', 'per_tx_cap_minor'],
        properties: {
          currency: CurrencySchema,
          rail: { enum: [...SUBMIT_RAILS] },
          cap_minor: Minor,
          per_tx_cap_minor: Minor,
        },
      },
    },
    display_name: {
      type: 'string',
      minLength: 1,
      maxLength: 120,
      description: 'Who asks, as the consent page shows it.',
    },
    intent_note: {
      type: 'string',
      minLength: 1,
      maxLength: 500,
      description: 'A note to the consumer, shown on the consent page.',
    },
    shipping: Shipping,
  },
} as const satisfies JsonSchema;

export type IntentInput = SchemaValue<typeof Intent>;

export const ConsentCreate = {
  type: 'object',
  additionalProperties: false,
  required: ['agent_id', 'intent'],
  properties: {
    agent_id: {
      type: 'string',
      minLength: 1,
      maxLength: 128,
      description: 'The agent the mandate will authorize; signed into it.',
    },
    intent: Intent,
    callback_url: {
      type: 'string',
      format: 'uri',
      maxLength: 2048,
      // Any absolute URI (https, an app's own scheme, a URN) except the schemes that run script: the hosted
      // page turns this into a link on the gateway's own origin, so javascript:, vbscript: or data: would run
      // the partner's script beside the consumer's authorization. Schemes are case-insensitive, hence the classes.
      pattern:
        '^(?![Jj][Aa][Vv][Aa][Ss][Cc][Rr][Ii][Pp][Tt]:|[Vv][Bb][Ss][Cc][Rr][Ii][Pp][Tt]:|[Dd][Aa][Tt][Aa]:)[A-Za-z][A-Za-z0-9+.-]*:.',
      description:
        'Any absolute URI except `javascript:`, `vbscript:` and `data:`; returned to the hosted page at submit (as its Continue link, with `mandate_id` added) so the partner receives the signed mandate.',
    },
    consumer_email_hint: { type: 'string', format: 'email', maxLength: 254 },
    surface: { enum: ['hosted', 'partner'], default: 'hosted' },
  },
} as const satisfies JsonSchema;

export const ConsentCreated = {
  type: 'object',
  required: ['token', 'expires_at', 'surface', 'consent_url'],
  properties: {
    token: {
      type: 'string',
      pattern: '^ctk_[0-9A-Za-z]{40}$',
      description: "One-shot, valid 24 hours; the consumer's credential for the page and the submit.",
    },
    expires_at: Timestamp,
    surface: { enum: ['hosted', 'partner'] },
    consent_url: {
      type: 'string',
      format: 'uri',
      description:
        'The hosted consent page. Append `?consumer_id=<id>` to bind the grant to an existing consumer.',
    },
  },
} as const satisfies JsonSchema;

export const PendingConsent = {
  type: 'object',
  required: [
    'token',
    'status',
    'surface',
    'agent_id',
    'intent',
    'consent_url',
    'callback_url',
    'consumer_email_hint',
    'expires_at',
    'created_at',
  ],
  properties: {
    token: { type: 'string' },
    status: { const: 'pending' },
    surface: { enum: ['hosted', 'partner'] },
    agent_id: { type: 'string' },
    intent: Intent,
    consent_url: { type: 'string' },
    callback_url: { type: ['string', 'null'] },
    consumer_email_hint: { type: ['string', 'null'] },
    expires_at: Timestamp,
    created_at: Timestamp,
  },
} as const satisfies JsonSchema;

export const Attestation = {
  type: 'object',
  additionalProperties: false,
  required: ['method', 'asserted_at', 'reference', 'evidence'],
  description: "The partner's statement of how the consumer confirmed; signed into the mandate verbatim.",
  properties: {
    method: { enum: ['partner_session'] },
    asserted_at: {
      type: 'integer',
      minimum: 0,
      maximum: 253402300799,
      description: 'Unix seconds when the consumer confirmed.',
    },
    reference: { type: 'string', minLength: 1, maxLength: 200 },
    holder_document: {
      ...DocumentNumber,
      description:
        "The partner account holder's CPF/CNPJ; recorded as the consumer's document when a contact is verified.",
    },
    evidence: {
      type: 'object',
      additionalProperties: false,
      properties: {
        channel: { type: 'string', minLength: 1, maxLength: 40 },
        message_id: { type: 'string', minLength: 1, maxLength: 200 },
        session_id: { type: 'string', minLength: 1, maxLength: 200 },
        provider_ts: { type: 'integer', minimum: 0 },
        ip: { type: 'string', oneOf: [{ format: 'ipv4' }, { format: 'ipv6' }] },
        user_agent: { type: 'string', minLength: 1, maxLength: 512 },
        device_id_hash: { type: 'string', pattern: '^[0-9a-fA-F]{16,128}$' },
        geo: {
          type: 'object',
          additionalProperties: false,
          properties: {
            country: { type: 'string', pattern: '^[A-Z]{2}$' },
            region: { type: 'string', maxLength: 100 },
            city: { type: 'string', maxLength: 100 },
          },
        },
        contact: { type: 'string', minLength: 1, maxLength: 320 },
      },
    },
  },
} as const satisfies JsonSchema;

const ConsumerIdField = {
  type: 'string',
  minLength: 1,
  maxLength: 64,
  description: 'Required on `partner`. On `hosted`, absent means a new consumer is created for this grant.',
} as const satisfies JsonSchema;
const DisplayLabelField = {
  type: 'string',
  minLength: 1,
  maxLength: 120,
  description: 'How the funding source is shown, e.g. "Nubank ••1234".',
} as const satisfies JsonSchema;

export const ConsentSubmit = {
  type: 'object',
  additionalProperties: false,
  properties: {
    consumer_id: ConsumerIdField,
    rail: {
      enum: [...SUBMIT_RAILS],
      default: 'pix-consent',
      description: 'The funding source the grant creates.',
    },
    provider_token: {
      type: 'string',
      minLength: 1,
      maxLength: 2048,
      description:
        "The provider's token for the funding source; required for `pix-partner`. Stored encrypted, never returned.",
    },
    display_label: DisplayLabelField,
    attestation: Attestation,
  },
} as const satisfies JsonSchema;

/** What the hosted page's own submit takes: the consumer's choices on the page, nothing a partner attests. */
export type AttestationInput = SchemaValue<typeof Attestation>;
export type ConsentSubmitBody = SchemaValue<typeof ConsentSubmit>;

export const ConsentPageSubmit = {
  type: 'object',
  additionalProperties: false,
  properties: {
    consumer_id: ConsumerIdField,
    rail: { const: 'pix-consent', default: 'pix-consent' },
    display_label: DisplayLabelField,
  },
} as const satisfies JsonSchema;

export const SignedMandateDocument = {
  type: 'object',
  description:
    'The canonical mandate: signed as its RFC 8785 form with HMAC-SHA256. Present it unchanged with `signature`.',
  required: [
    'version',
    'id',
    'revision',
    'nonce',
    'scope',
    'agent_id',
    'consumer_id',
    'funding_source_id',
    'rail',
    'purpose',
    'currency',
    'cap_minor',
    'per_tx_cap_minor',
    'merchant_allowlist',
    'issued_at',
    'expires_at',
  ],
  properties: {
    version: { const: 1 },
    id: { type: 'string' },
    revision: { type: 'integer' },
    nonce: { type: 'string', pattern: '^[0-9a-f]{32}$' },
    scope: {
      type: 'string',
      description: '`<org_id>/<project_id>/<consumer_id>`: whose money, in which project.',
    },
    agent_id: { type: 'string' },
    consumer_id: { type: 'string' },
    funding_source_id: { type: 'string' },
    rail: { enum: [...SUBMIT_RAILS] },
    purpose: { type: 'string' },
    currency: CurrencySchema,
    cap_minor: { type: 'string', pattern: '^[0-9]+$' },
    per_tx_cap_minor: { type: 'string', pattern: '^[0-9]+$' },
    merchant_allowlist: { type: 'array', items: { type: 'string' } },
    merchant_pin_kind: { enum: [...MERCHANT_PIN_KINDS] },
    withdrawal_allowlist: { type: 'array', items: { type: 'string' } },
    dda_allowlist: { type: 'array', items: { type: 'string' } },
    periodic_cap: { type: 'object' },
    slots: { type: 'array' },
    shipping: Shipping,
    attestation: Attestation,
    issued_at: Timestamp,
    expires_at: Timestamp,
  },
} as const satisfies JsonSchema;

export const ConsentSubmitted = {
  type: 'object',
  required: [
    'mandate_id',
    'consumer_id',
    'funding_source_id',
    'consent_record_id',
    'mandate',
    'signature',
    'hmac_secret_version',
    'expires_at',
    'callback_url',
  ],
  properties: {
    mandate_id: { type: 'string' },
    consumer_id: { type: 'string' },
    funding_source_id: { type: 'string' },
    consent_record_id: { type: 'string', pattern: '^ccsnt_' },
    mandate: SignedMandateDocument,
    signature: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    hmac_secret_version: { type: 'integer' },
    expires_at: Timestamp,
    callback_url: { type: ['string', 'null'] },
  },
} as const satisfies JsonSchema;
