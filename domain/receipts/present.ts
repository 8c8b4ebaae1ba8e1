// The public shape of a receipt: the sealed body's parts at top level, the chain link and both signatures.
import type { ReceiptRow } from './receipts';
import { signedMessage } from './signatures';

export function presentReceipt(row: ReceiptRow): Record<string, unknown> {
  const body = row.body;
  return {
    receipt_id: row.id,
    consumer_id: row.consumer_id,
    state: row.state,
    mandate: body.mandate,
    quote: body.quote ?? null,
    payment: body.payment,
    actor: body.actor ?? null,
    approval: row.approval,
    delivery: row.delivery,
    chain: {
      version: row.chain_version,
      seq: row.chain_seq,
      prev_hash: row.chain_prev_hash,
      approval_hash: row.chain_approval_hash,
      body_hash: row.chain_body_hash,
      hash: row.chain_hash,
    },
    body,
    receipt_sig: row.receipt_sig,
    receipt_sig_ed25519: row.receipt_sig_ed25519,
    signatures: {
      message: signedMessage(row.chain_hash),
      hmac_secret_version: row.receipt_sig_secret_version,
      ed25519_kid: row.ed25519_kid,
    },
    exceptions: row.exceptions,
    sealed_at: row.sealed_at,
    updated_at: row.updated_at,
  };
}
