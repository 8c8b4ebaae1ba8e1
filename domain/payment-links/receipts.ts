// Sealing a settled link payment's receipt inside the transaction that settles it, with the consumer
// receipts' own machinery: canonical body, hash chain link (one chain per link) and the gateway's Ed25519
// signature under its current published key. A retry finds the receipt it sealed before.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import type { KeyRing } from '../crypto/secret-box';
import { prefixedId } from '../ids';
import { nextLink } from '../receipts/chain';
import { ed25519Signature } from '../receipts/signatures';
import { currentSigningKey } from '../receipts/signing-keys';
import type { LinkPaymentRow } from './payment-row';

export const linkReceiptRow = z.object({
  id: z.string(),
  payment_id: z.string(),
  body: z.record(z.unknown()),
  chain_seq: z.number(),
  chain_prev_hash: z.string().nullable(),
  chain_body_hash: z.string(),
  chain_hash: z.string(),
  chain_version: z.number(),
  receipt_sig_ed25519: z.string(),
  ed25519_kid: z.string(),
});
export type LinkReceiptRow = z.infer<typeof linkReceiptRow>;

const COLUMNS = sql.fragment`id, payment_id, body, chain_seq, chain_prev_hash, chain_body_hash, chain_hash, chain_version, receipt_sig_ed25519, ed25519_kid`;

export async function sealLinkReceipt(
  tx: CommonQueryMethods,
  ring: KeyRing,
  payment: LinkPaymentRow,
  providerRef: string,
): Promise<LinkReceiptRow> {
  const existing = await tx.maybeOne(
    sql.type(linkReceiptRow)`SELECT ${COLUMNS} FROM payment_link_receipts WHERE payment_id = ${payment.id}`,
  );
  if (existing) return existing;
  const key = await currentSigningKey(tx, ring);
  // The settling transaction holds the link's row lock, which orders concurrent seals on one chain.
  const previous = await tx.maybeOne(sql.type(z.object({ chain_seq: z.number(), chain_hash: z.string() }))`
    SELECT chain_seq, chain_hash FROM payment_link_receipts WHERE link_id = ${payment.link_id} ORDER BY chain_seq DESC LIMIT 1`);
  const id = prefixedId('rcpt', 20);
  const sealedAt = new Date().toISOString();
  const body = {
    receipt_id: id,
    link_id: payment.link_id,
    payment: {
      payment_id: payment.id,
      rail: payment.rail,
      currency: payment.currency,
      amount_minor: payment.amount_minor.toString(),
      pay_to: payment.pay_to,
      provider_ref: providerRef,
      sandbox: payment.environment === 'test',
      money_moved: true,
      at: payment.settled_at,
    },
    sealed_at: sealedAt,
  };
  const link = nextLink(previous ? { seq: previous.chain_seq, hash: previous.chain_hash } : null, body, null);
  return tx.one(sql.type(linkReceiptRow)`
    INSERT INTO payment_link_receipts (id, payment_id, link_id, org_id, project_id, body, chain_seq, chain_prev_hash, chain_body_hash,
      chain_hash, chain_version, receipt_sig_ed25519, ed25519_kid, sealed_at)
    VALUES (${id}, ${payment.id}, ${payment.link_id}, ${payment.org_id}, ${payment.project_id}, ${sql.jsonb(body as never)},
      ${link.seq}, ${link.prev_hash}, ${link.body_hash}, ${link.hash}, ${link.version},
      ${ed25519Signature(key.privateKey, link.hash)}, ${key.kid}, ${sealedAt})
    RETURNING ${COLUMNS}`);
}
