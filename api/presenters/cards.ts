// The public shapes of an agent card, a card mint flow and a card authorization. Nothing here can carry a
// card's number or CVC: the gateway never holds them.
import type { AuthorizationView } from '../../domain/issuer/authorizations';
import type { AgentCardRow } from '../../domain/issuer/cards';
import type { AgentMintFlowRow } from '../../domain/issuer/mint-flows';

export function presentCard(row: AgentCardRow): Record<string, unknown> {
  return {
    id: row.id,
    object: 'card',
    issuer: row.issuer,
    card_id: row.card_id,
    last4: row.last4,
    network: row.network,
    exp_month: row.exp_month,
    exp_year: row.exp_year,
    status: row.status,
    wallet_id: row.wallet_id,
    mandate_id: row.mandate_id,
    currency: row.currency,
    spending_controls: row.controls,
    expires_at: row.expires_at,
    metadata: row.metadata,
    mint_flow_id: row.mint_flow_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function presentMintFlow(row: AgentMintFlowRow): Record<string, unknown> {
  const walletId = row.request.wallet_id;
  return {
    id: row.id,
    object: 'card_mint_flow',
    issuer: row.issuer,
    status: row.status,
    step: row.step,
    card_id: row.card_id,
    wallet_id: typeof walletId === 'string' ? walletId : null,
    failure_reason: row.failure_reason,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function presentAuthorization({
  authorization: a,
  transactions,
}: AuthorizationView): Record<string, unknown> {
  return {
    id: a.id,
    object: 'card_authorization',
    card_id: a.card_id,
    wallet_id: a.wallet_id,
    attempt_id: a.attempt_id,
    issuer_authorization_id: a.issuer_authorization_id,
    amount_minor: a.amount_minor.toString(),
    currency: a.currency,
    merchant: a.merchant,
    approved: a.approved,
    decline_reason: a.decline_reason,
    status: a.status,
    held_minor: a.held_minor.toString(),
    captured_minor: a.captured_minor.toString(),
    refunded_minor: a.refunded_minor.toString(),
    expires_at: a.expires_at,
    transactions: transactions.map((t) => ({
      id: t.id,
      type: t.type,
      issuer_transaction_id: t.issuer_transaction_id,
      amount_minor: t.amount_minor.toString(),
      ledger_minor: t.ledger_minor.toString(),
      unfunded_minor: t.unfunded_minor.toString(),
      created_at: t.created_at,
    })),
    created_at: a.created_at,
    updated_at: a.updated_at,
  };
}
