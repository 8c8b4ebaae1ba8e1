// The buyer's EIP-3009 authorization behind each x402 link payment, and the settlement transaction's hash.
// The nonce is unique per (network, asset, payer): a replay fails on insert, inside the same transaction
// that would have reserved the link's use, so it reserves nothing.
import { sql, UniqueIntegrityConstraintViolationError } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../../runtime/database';
import type { VerifiedAuthorization } from './verify';

const authorizationRow = z.object({
  payment_id: z.string(),
  network: z.string(),
  asset: z.string(),
  payer: z.string(),
  pay_to: z.string(),
  value: z.bigint(),
  valid_after: z.bigint(),
  valid_before: z.bigint(),
  nonce: z.string(),
  signature: z.string(),
  tx_hash: z.string().nullable(),
});
export type AuthorizationRow = z.infer<typeof authorizationRow>;

export class AuthorizationReplayed extends Error {}

export async function insertAuthorization(
  tx: CommonQueryMethods,
  paymentId: string,
  network: string,
  asset: string,
  a: VerifiedAuthorization,
): Promise<void> {
  try {
    await tx.query(sql.unsafe`
      INSERT INTO payment_link_x402_authorizations
        (payment_id, network, asset, payer, pay_to, value, valid_after, valid_before, nonce, signature)
      VALUES (${paymentId}, ${network}, ${asset.toLowerCase()}, ${a.from.toLowerCase()}, ${a.to.toLowerCase()},
              ${a.value}, ${a.validAfter}, ${a.validBefore}, ${a.nonce.toLowerCase()}, ${a.signature})`);
  } catch (error) {
    if (
      error instanceof UniqueIntegrityConstraintViolationError &&
      error.constraint === 'payment_link_x402_authorizations_nonce_key'
    )
      throw new AuthorizationReplayed('This authorization was already presented');
    throw error;
  }
}

/** Whether an authorization with this nonce was ever presented, whatever became of its payment. */
export async function authorizationSeen(
  db: CommonQueryMethods,
  network: string,
  asset: string,
  payer: string,
  nonce: string,
): Promise<boolean> {
  const row = await db.maybeOne(sql.type(z.object({ payment_id: z.string() }))`
    SELECT payment_id FROM payment_link_x402_authorizations
    WHERE network = ${network} AND asset = ${asset.toLowerCase()} AND payer = ${payer.toLowerCase()} AND nonce = ${nonce.toLowerCase()}`);
  return row !== null;
}

export async function getAuthorization(
  db: CommonQueryMethods,
  paymentId: string,
): Promise<AuthorizationRow | null> {
  return db.maybeOne(sql.type(authorizationRow)`
    SELECT payment_id, network, asset, payer, pay_to, value, valid_after, valid_before, nonce, signature, tx_hash
    FROM payment_link_x402_authorizations WHERE payment_id = ${paymentId}`);
}

/** Records the settlement's transaction; the first recorded hash wins and is returned. */
export async function recordSettlementTx(
  db: CommonQueryMethods,
  paymentId: string,
  txHash: string,
): Promise<string> {
  const row = await db.one(sql.type(z.object({ tx_hash: z.string() }))`
    UPDATE payment_link_x402_authorizations SET tx_hash = coalesce(tx_hash, ${txHash.toLowerCase()})
    WHERE payment_id = ${paymentId} RETURNING tx_hash`);
  return row.tx_hash;
}
