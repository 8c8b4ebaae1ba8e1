// The event catalog: every event type the gateway writes to the outbox, with what it means and the
// area that writes it. Areas import their type names from here so a subscription can only name a real
// event, and the OpenAPI document lists the same set. Names are dot-separated lowercase.

export interface EventTypeSpec {
  area: 'tools' | 'commerce' | 'payments' | 'approvals' | 'consents' | 'mandates' | 'wallets' | 'dda' | 'payment_links' | 'webhooks';
  description: string;
}

export const EVENT_CATALOG = {
  // Tool calls (written to the audit chain for every dispatched tool call, chat-loop calls included).
  'tool_call.succeeded': { area: 'tools', description: 'A dispatched tool call finished successfully.' },
  'tool_call.failed': { area: 'tools', description: 'A dispatched tool call ended in an error.' },

  // Commerce notifications from providers.
  'commerce.ted_in.succeeded': { area: 'commerce', description: 'An inbound TED transfer arrived.' },

  // Consumer payments (mandate-bound spends).
  'payment.succeeded': { area: 'payments', description: 'A spend settled; the receipt is sealed.' },
  'payment.failed': { area: 'payments', description: 'A spend was refused or failed; nothing was debited.' },
  'payment.uncertain': { area: 'payments', description: 'The provider outcome of a spend is unknown (`psp_dispatch_uncertain`); present the same attempt_id again.' },
  'payment.requires_approval': { area: 'payments', description: 'A spend is held until a person decides its approval.' },
  'receipt.delivered': { area: 'payments', description: 'A delivery proof was sealed on a receipt.' },
  'receipt.exception': { area: 'payments', description: 'An exception was recorded on a receipt.' },

  // Approvals of held calls.
  'approval.requested': { area: 'approvals', description: 'A policy rule or guard held a call; an approval is pending.' },
  'approval.approved': { area: 'approvals', description: 'A pending approval was approved.' },
  'approval.denied': { area: 'approvals', description: 'A pending approval was denied.' },
  'approval.expired': { area: 'approvals', description: 'A pending approval expired undecided.' },
  'approval.executed': { area: 'approvals', description: 'An approved call was replayed; `execution_result` is set.' },
  'approval.execution_failed': { area: 'approvals', description: 'An approved call was replayed and failed.' },

  // Hosted consents and the mandates they produce.
  'consent.created': { area: 'consents', description: 'A consent token was issued (valid 24 hours).' },
  'consent.consumed': { area: 'consents', description: 'A consumer submitted a consent; its mandate is signed.' },
  'consent.expired': { area: 'consents', description: 'A consent token expired unused.' },
  'mandate.signed': { area: 'mandates', description: 'A mandate was signed server-side.' },
  'mandate.amended': { area: 'mandates', description: 'A mandate was amended (a new consent record of kind `amend`).' },
  'mandate.revoked': { area: 'mandates', description: 'A mandate was revoked.' },
  'mandate.expired': { area: 'mandates', description: 'A mandate reached its expiry.' },

  // Wallets and their ledger.
  'wallet.created': { area: 'wallets', description: 'A wallet was created.' },
  'wallet.frozen': { area: 'wallets', description: 'A wallet was frozen; it accepts no ledger entries.' },
  'wallet.closed': { area: 'wallets', description: 'A wallet was closed.' },
  'wallet.funded': { area: 'wallets', description: 'A `fund` ledger entry was posted.' },
  'wallet.debited': { area: 'wallets', description: 'A `debit` ledger entry was posted.' },
  'ledger.entry_refused': { area: 'wallets', description: 'A ledger post was refused (`wallet_not_active`, `ledger_conflict`, `balance_constraint_violation`); nothing was written.' },
  'wallet.anomaly_detected': { area: 'wallets', description: 'Reconciliation found a debit without receipt or a receipt without debit.' },

  // Boleto DDA registrations.
  'dda.registration.pending': { area: 'dda', description: 'A DDA registration was sent to the provider.' },
  'dda.registration.active': { area: 'dda', description: 'The provider confirmed a DDA registration.' },
  'dda.registration.error': { area: 'dda', description: 'The provider refused a DDA registration.' },
  'dda.registration.deleted': { area: 'dda', description: 'A DDA registration was ended upstream.' },

  // Payment links.
  'payment_link.created': { area: 'payment_links', description: 'A payment link was created.' },
  'payment_link.paid': { area: 'payment_links', description: 'A payment link received a successful payment.' },
  'payment_link.expired': { area: 'payment_links', description: 'A payment link passed its expiry.' },
  'payment_link.voided': { area: 'payment_links', description: 'A payment link was voided.' },

  // Webhooks themselves.
  'webhook_endpoint.test': { area: 'webhooks', description: 'A test-fire sent to one endpoint (never fanned out to subscribers).' },
} as const satisfies Record<string, EventTypeSpec>;

export type EventType = keyof typeof EVENT_CATALOG;

export const EVENT_TYPES = Object.keys(EVENT_CATALOG) as EventType[];

/** The outbox's own rule for a type name (schema/sql/0002_events.sql checks the same pattern). */
export const EVENT_TYPE_PATTERN = /^[a-z0-9_]+(\.[a-z0-9_]+)+$/;

export function isEventType(value: string): value is EventType {
  return Object.prototype.hasOwnProperty.call(EVENT_CATALOG, value);
}

/** Types an endpoint may subscribe to: everything except the test-fire, which only its own endpoint receives. */
export const SUBSCRIBABLE_EVENT_TYPES = EVENT_TYPES.filter((type) => type !== 'webhook_endpoint.test');

/** A markdown table of the catalog for the OpenAPI document. */
export function catalogMarkdown(): string {
  const rows = EVENT_TYPES.map((type) => `| \`${type}\` | ${EVENT_CATALOG[type].area} | ${EVENT_CATALOG[type].description} |`);
  return ['| Type | Area | Meaning |', '|---|---|---|', ...rows].join('\n');
}
