// The event catalog: the one list of event types, with what each means and the area that writes it.
// Emitters take `EventType` (recordEvent, the test-fire), the subscribe validator and the OpenAPI document
// read the same list, and the database refuses any other type: a type added here needs a migration inserting
// it into the `event_catalog` table (schema/sql/0770_event_catalog_table.sql), which keeps the
// `event_catalog_types()` check in step; test/event-catalog.test.ts checks both ways. Names are dot-separated lowercase.

export type EventArea =
  | 'tools'
  | 'commerce'
  | 'payments'
  | 'receipts'
  | 'approvals'
  | 'consumers'
  | 'contact_verification'
  | 'consents'
  | 'mandates'
  | 'wallets'
  | 'ledger'
  | 'oauth'
  | 'webhooks'
  | 'payment_links'
  | 'provisioning'
  | 'cards'
  | 'kyc';

export interface EventTypeSpec {
  area: EventArea;
  description: string;
  /** Named by the spec and subscribable, but written by capabilities still being built: nothing emits it yet. */
  reserved?: true;
}

export const EVENT_CATALOG = {
  // Tool calls of sessions (REST and MCP alike), and inbound TED credited to a consumer's sub-account.
  'tool_call.succeeded': {
    area: 'tools',
    description:
      'A dispatched tool call finished successfully (written to the audit chain for every dispatched tool call, chat-loop calls included).',
  },
  'tool_call.failed': {
    area: 'tools',
    description:
      'A dispatched tool call ended in an error (written to the audit chain for every dispatched tool call, chat-loop calls included).',
  },
  'commerce.ted_in.succeeded': {
    area: 'commerce',
    description:
      "An inbound TED transfer arrived and was credited to the consumer's sub-account (`provider_transfer_id`, `amount_minor`, `ledger_entry_id`).",
  },

  // Payments: wallet execute (`data.wallet`) and mandate-bound consumer spends (`data.mandate_id`, `data.rail`).
  'payment.succeeded': {
    area: 'payments',
    description:
      'A payment settled: wallet execute debited its hold, or a consumer spend settled and sealed its receipt (`receipt_id`).',
  },
  'payment.failed': {
    area: 'payments',
    description:
      'A payment was refused or failed after it started; any hold was released and nothing was debited (`code` says why).',
  },
  'payment.denied': {
    area: 'payments',
    description: 'A wallet execute was denied by a policy rule before any money was held.',
  },
  'payment.requires_approval': {
    area: 'payments',
    description: 'A payment is held until a person decides its approval (`approval_id`).',
  },
  'payment.uncertain': {
    area: 'payments',
    description:
      'The provider outcome of a consumer spend is unknown (`psp_dispatch_uncertain`); its hold stays until the same attempt_id is presented again.',
  },

  // Receipts of consumer spends.
  'receipt.sealed': {
    area: 'receipts',
    description: "A receipt was sealed on the consumer's chain for a settled spend (state `paid`).",
  },
  'receipt.delivered': { area: 'receipts', description: 'A delivery proof was sealed on a receipt.' },
  'receipt.exception': { area: 'receipts', description: 'An exception was recorded on a receipt.' },
  'receipt.voided': { area: 'receipts', description: 'A receipt was voided.' },

  // Approvals of held calls.
  'approval.requested': {
    area: 'approvals',
    description: "A policy rule held a call; an approval is pending a person's decision.",
  },
  'approval.approved': { area: 'approvals', description: 'A pending approval was approved.' },
  'approval.denied': { area: 'approvals', description: 'A pending approval was denied.' },
  'approval.expired': { area: 'approvals', description: 'A pending approval expired undecided.' },
  'approval.executed': {
    area: 'approvals',
    description: 'An approved call was replayed; `execution_result` is set.',
  },
  'approval.execution_failed': {
    area: 'approvals',
    description: 'An approved call was replayed and failed; `execution_result` says how.',
  },

  // Consumers (titulars) and their contact verification.
  'consumer.created': { area: 'consumers', description: 'A consumer was created.' },
  'consumer.updated': {
    area: 'consumers',
    description: "A consumer's fields changed (`fields` names them).",
  },
  'consumer.verified': {
    area: 'consumers',
    description: "A consumer's identity was verified (or its verified document changed).",
  },
  'consumer.funding_source.created': {
    area: 'consumers',
    description: 'A funding source was added to a consumer.',
  },
  // DDA registrations of a consumer's payer document.
  'dda.subscription.activated': {
    area: 'consumers',
    description: 'The DDA provider confirmed a registration; `provider_subscription_id` is recorded.',
  },
  'dda.subscription.failed': {
    area: 'consumers',
    description: 'The DDA provider refused a registration (`code`); it is `error`.',
  },
  'dda.subscription.deleted': {
    area: 'consumers',
    description: 'A DDA registration was ended upstream and locally.',
  },
  'contact_verification.sent': {
    area: 'contact_verification',
    description: "A one-time code was sent to a consumer's contact.",
  },
  'contact_verification.verified': {
    area: 'contact_verification',
    description: "A consumer's contact was verified with its one-time code.",
  },

  // Hosted consents and the mandates they produce.
  'consent.created': { area: 'consents', description: 'A consent token was issued (valid 24 hours).' },
  'consent.consumed': {
    area: 'consents',
    description: 'A consumer submitted a consent; its mandate is signed.',
  },
  'consent.expired': { area: 'consents', description: 'A consent token expired unused.' },
  'mandate.signed': { area: 'mandates', description: 'A mandate was signed server-side.' },
  'mandate.amended': {
    area: 'mandates',
    description: 'A mandate was amended (a new consent record of kind `amend`).',
  },
  'mandate.revoked': { area: 'mandates', description: 'A mandate was revoked.' },
  'mandate.expired': { area: 'mandates', description: 'A mandate reached its expiry.' },

  // Wallets.
  'wallet.created': {
    area: 'wallets',
    description: "A wallet was created (an agent wallet, or a consumer's sub-account with `consumer_id`).",
  },
  'wallet.frozen': { area: 'wallets', description: 'A wallet was frozen; it accepts no ledger entries.' },
  'wallet.unfrozen': { area: 'wallets', description: 'A frozen wallet was made active again.' },
  'wallet.closed': { area: 'wallets', description: 'A wallet was closed (final).' },
  'wallet.funding_source_bound': {
    area: 'wallets',
    description: 'A provider connection was bound to a wallet as a funding source for a currency.',
  },
  'wallet.funding_source_unbound': {
    area: 'wallets',
    description: 'A funding source was removed from a wallet.',
  },
  'wallet.anomaly_detected': {
    area: 'wallets',
    description:
      'Reconciliation found a debit without receipt or a receipt without debit; an anomaly is open.',
  },
  'wallet.anomaly_resolved': {
    area: 'wallets',
    description: 'An open reconciliation anomaly was resolved (`status`, `note`).',
  },
  // Top-ups: money that really arrived for a wallet (a paid Pix charge, a confirmed USDC deposit).
  'wallet.topup.created': {
    area: 'wallets',
    description:
      'A Pix top-up of a wallet was opened: the charge (`txid`) waits for the payer (`topup_id`, `amount_minor`, `expires_at`).',
  },
  'wallet.topup.credited': {
    area: 'wallets',
    description:
      'Money arrived and was credited to the wallet once: a paid Pix charge or a confirmed USDC deposit (`topup_id`, `method`, `amount_minor`, `external_ref`, `ledger_entry_id`).',
  },
  'wallet.topup.expired': {
    area: 'wallets',
    description:
      "A Pix top-up's charge lapsed unpaid, or the PSP refused it; nothing was credited (`reason`).",
  },

  // The ledger: one event per entry, whatever its kind (`fund`, `hold`, `release`, `debit`, `reconcile`, `reverse`, `fee`).
  'ledger.entry_posted': {
    area: 'ledger',
    description:
      'A ledger entry was posted; `kind` and `amount_minor` say what moved, with the balance after it.',
  },
  'ledger.entry_refused': {
    area: 'ledger',
    description:
      'A ledger post was refused (`wallet_not_active`, `ledger_conflict`, `balance_constraint_violation`); nothing was written.',
  },
  'ledger.adjustment_posted': {
    area: 'ledger',
    description:
      'An operator adjusted a wallet by hand (`fund`, `reconcile`, `reverse` or `fee`): the entry, the operator (`actor`) and the `reason`.',
  },

  // Provisioning runs: sandbox accounts opened at catalog providers (`data.run_id`, `data.provider`).
  'provisioning_run.created': {
    area: 'provisioning',
    description: 'A provisioning run started signing the project up for a sandbox account at a provider.',
  },
  'provisioning_run.awaiting_verification': {
    area: 'provisioning',
    description:
      'The provider sent a verification code (`sent_to`, masked); the run waits for it until `expires_at`.',
  },
  'provisioning_run.succeeded': {
    area: 'provisioning',
    description:
      "The sandbox account's credential is sealed in the vault as the project's connection (`connection_id`).",
  },
  'provisioning_run.failed': {
    area: 'provisioning',
    description: 'The run ended without an account (`code`: `signup_refused`, `provider_unavailable`, …).',
  },
  'provisioning_run.canceled': {
    area: 'provisioning',
    description: 'The run was canceled before it finished.',
  },
  'provisioning_run.expired': {
    area: 'provisioning',
    description: 'No verification code came before the pause expired; a code sent now is refused with 410.',
  },

  // OAuth grants to clients.
  'oauth_grant.created': {
    area: 'oauth',
    description: "An OAuth client was granted access with a pasted API key's authority.",
  },
  'oauth_grant.revoked': {
    area: 'oauth',
    description: 'An OAuth grant and every token under it were revoked.',
  },

  // Payment links: a buyer's payment of a link over one rail.
  'payment_link.payment_succeeded': {
    area: 'payment_links',
    description:
      'A buyer paid a payment link; the payment is confirmed by the rail and counted as a use of the link.',
  },
  'payment_link.payment_expired': {
    area: 'payment_links',
    description: 'A link payment was not paid in time; its reserved use of the link was released.',
  },

  // KYC onboarding: one consumer's application for an account at the KYC provider (`proposal_id`, `consumer_id`).
  'kyc.onboarding.started': {
    area: 'kyc',
    description: 'An onboarding was started: the proposal is open at the KYC provider and `pending`.',
  },
  'kyc.onboarding.pending': {
    area: 'kyc',
    description:
      'An onboarding went back to `pending` (the provider is processing it, e.g. after the document check).',
  },
  'kyc.onboarding.documentscopy_pending': {
    area: 'kyc',
    description: 'The holder must finish the document check at `hosted_url`.',
  },
  'kyc.onboarding.approved': {
    area: 'kyc',
    description:
      "An onboarding was approved: the account is open (`account`), its `pix-partner` funding source created (`funding_source_id`) and the consumer's document verified.",
  },
  'kyc.onboarding.rejected': {
    area: 'kyc',
    description: "The KYC provider rejected an onboarding (`reason` is the provider's).",
  },
  'kyc.pix_key.registered': {
    area: 'kyc',
    description: "An approved onboarding's account got its Pix key (`pix_key`, `pix_key_type`).",
  },
  'kyc.pix_key.registration_failed': {
    area: 'kyc',
    description:
      "An approved account's Pix key could not be registered (`reason`, `attempt`); the account is usable and the registration is retried on its own schedule.",
  },

  // Webhooks themselves.
  'webhook_endpoint.test': {
    area: 'webhooks',
    description: 'A test-fire sent to one endpoint (never fanned out to subscribers).',
  },
  // Tenant tool servers.
  'tool_server.created': { area: 'tools', description: 'A tenant tool server was registered.' },
  'tool_server.updated': {
    area: 'tools',
    description: "A tenant tool server's listing, activity or a tool's price changed.",
  },
  'tool_server.deleted': {
    area: 'tools',
    description: 'A tenant tool server was deleted; its priced tools are gone, settled charges stay.',
  },
  'tool_server.fees_swept': {
    area: 'tools',
    description: "Accrued platform fees moved to the organization's platform-fee wallet.",
  },
  'tool_charge.uncertain': {
    area: 'tools',
    description:
      "A paid call's upstream answer never came: the caller's price stays held until the tenant or an operator resolves it (`attempt_id`, `charge_id`, `tool_server_id`).",
  },
  'tool_charge.resolved': {
    area: 'tools',
    description:
      'A held paid call was resolved: `outcome` `succeeded` debited the price with the splits, `failed` released it (`resolved_by`).',
  },
  // Agent cards: virtual cards whose authorizations the gateway decides, and the issuer's later messages.
  'card.created': {
    area: 'cards',
    description:
      'A mint flow issued a virtual card bound to a wallet (`card_id`, `mint_flow_id`, `wallet_id`).',
  },
  'card.updated': {
    area: 'cards',
    description: "A card's status changed (`status`: `active`, `frozen` or `closed`).",
  },
  'card.authorization.approved': {
    area: 'cards',
    description:
      "The gateway approved an issuer's authorization request and held its amount on the card's wallet (`authorization_id`, `amount_minor`, `hold_id`).",
  },
  'card.authorization.declined': {
    area: 'cards',
    description:
      "The gateway declined an issuer's authorization request; nothing was held (`decline_reason`).",
  },
  'card.authorization.reversed': {
    area: 'cards',
    description: 'The merchant reversed an authorization; its hold was released (`released_minor`).',
  },
  'card.authorization.expired': {
    area: 'cards',
    description:
      "An authorization lapsed uncaptured; its hold was released (`released_minor`). `expired_by`: `issuer` (the issuer's expiry message) or `gateway` (the authorization's `expires_at` passed first).",
  },
  'card.transaction.captured': {
    area: 'cards',
    description:
      'The issuer captured (cleared) an authorization: the wallet was debited (`amount_minor`, `ledger_minor`, `unfunded_minor` beyond tolerance).',
  },
  'card.transaction.refunded': {
    area: 'cards',
    description: 'A merchant refunded a card purchase; the wallet was credited (`amount_minor`).',
  },
} as const satisfies Record<string, EventTypeSpec>;

export type EventType = keyof typeof EVENT_CATALOG;

export const EVENT_TYPES = Object.keys(EVENT_CATALOG) as EventType[];

/** Types nothing emits yet (see the `reserved` flag). */
export const RESERVED_EVENT_TYPES = EVENT_TYPES.filter(
  (type) => (EVENT_CATALOG[type] as EventTypeSpec).reserved === true,
);

/** The outbox's own rule for a type name (schema/sql/0002_events.sql checks the same pattern). */
export const EVENT_TYPE_PATTERN = /^[a-z0-9_]+(\.[a-z0-9_]+)+$/;

export function isEventType(value: string): value is EventType {
  return Object.prototype.hasOwnProperty.call(EVENT_CATALOG, value);
}

/** Types an endpoint may subscribe to: everything except the test-fire, which only its own endpoint receives. */
export const isSubscribable = (type: EventType): boolean => type !== 'webhook_endpoint.test';
export const SUBSCRIBABLE_EVENT_TYPES = EVENT_TYPES.filter(isSubscribable);

export function describeEventType(type: EventType): string {
  const spec: EventTypeSpec = EVENT_CATALOG[type];
  return spec.reserved ? `${spec.description} Reserved: subscribable, not emitted yet.` : spec.description;
}

/** A markdown table of the catalog for the OpenAPI document. */
export function catalogMarkdown(): string {
  const rows = EVENT_TYPES.map(
    (type) => `| \`${type}\` | ${EVENT_CATALOG[type].area} | ${describeEventType(type)} |`,
  );
  return ['| Type | Area | Meaning |', '|---|---|---|', ...rows].join('\n');
}
