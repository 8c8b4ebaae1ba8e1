// Receipt rows: sealing one inside the transaction that settles its attempt (chain link, both
// signatures, outbox event), reading and listing them per tenant, and the state moves after sealing.
import { createHash, type KeyObject } from 'node:crypto';
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import type { KeyRing } from '../crypto/secret-box';
import { ApiError, notFound } from '../errors';
import type { EventType } from '../../contracts/event-catalog';
import { eventInsertFrom, recordEvent, type EventScope } from '../events/record';
import { afterCommit } from '../../runtime/telemetry/after-commit';
import { countEvent } from '../../runtime/telemetry/metrics';
import { prefixedId } from '../ids';
import { canonicalize } from '../canonical-json';
import { nextLink, type SpendApprovalClaim } from './chain';
import { currentReceiptSecretQuery, openReceiptSecret, secretRow } from './consumer-secrets';
import { ed25519Signature, hmacSignature } from './signatures';
import { CURRENT_SIGNING_KEY, currentSigningKey, keyRow, openSigningKey } from './signing-keys';
import { applyMove, RECEIPT_STATES, type ReceiptMove } from './states';

export const receiptRow = z.object({
  id: z.string(),
  consumer_id: z.string(),
  attempt_id: z.string(),
  state: z.enum(RECEIPT_STATES),
  body: z.record(z.unknown()),
  approval: z.object({ items_hash: z.string(), batch_hash: z.string() }).nullable(),
  chain_seq: z.number(),
  chain_prev_hash: z.string().nullable(),
  chain_approval_hash: z.string().nullable(),
  chain_body_hash: z.string(),
  chain_hash: z.string(),
  chain_version: z.number(),
  receipt_sig: z.string(),
  receipt_sig_secret_version: z.number(),
  receipt_sig_ed25519: z.string(),
  ed25519_kid: z.string(),
  delivery: z.record(z.unknown()).nullable(),
  exceptions: z.array(z.object({ code: z.string(), detail: z.string(), at: z.string() })),
  sealed_at: z.string(),
  updated_at: z.string(),
});
export type ReceiptRow = z.infer<typeof receiptRow>;

const COLUMNS = sql.fragment`id, consumer_id, attempt_id, state, body, approval, chain_seq, chain_prev_hash, chain_approval_hash, chain_body_hash,
  chain_hash, chain_version, receipt_sig, receipt_sig_secret_version, receipt_sig_ed25519, ed25519_kid, delivery, exceptions, sealed_at, updated_at`;

export interface ReceiptPayment {
  rail: 'pix' | 'ted';
  amount_minor: string;
  amount_authorized: string;
  amount_charged: string;
  amount_refunded: string;
  metering: { basis: string; units: number; unit_price: string };
  sandbox: boolean;
  attempt_id: string;
  money_moved: boolean;
  at: string;
  payee: string;
  provider_payment_id: string | null;
  end_to_end_id: string | null;
}

export interface SealInput {
  consumerId: string;
  attemptId: string;
  mandate: { id: string; nonce: string; scope: string; currency: string; sig: string };
  quote: Record<string, unknown> | null;
  payment: ReceiptPayment;
  actor: Record<string, unknown> | null;
  approval: SpendApprovalClaim | null;
  /** Divergences between what was asked and what settled; recorded, never fatal. */
  exceptions: Array<{ code: string; detail: string }>;
}

/** What sealing reads before it writes, in one statement: the attempt's receipt if sealed, and what signs. */
const sealingRow = z
  .object({
    secret: secretRow.pick({ version: true, secret_sealed: true }).nullable(),
    key: keyRow.pick({ kid: true, public_key: true, private_key_sealed: true }).nullable(),
    previous: z.object({ chain_seq: z.number(), chain_hash: z.string() }).nullable(),
    id: z.string().nullable(),
  })
  .passthrough();

const previousLink = z.object({ chain_seq: z.number(), chain_hash: z.string() });
const lastLinkOf = (consumerId: string) =>
  sql.fragment`SELECT chain_seq, chain_hash FROM receipts WHERE consumer_id = ${consumerId} ORDER BY chain_seq DESC LIMIT 1`;

/**
 * Seals the attempt's receipt in the caller's transaction; a retry finds the receipt it sealed before.
 * Returns null when the consumer has no receipt secret to sign with.
 *
 * One chain per consumer: a receipt links to the newest one read, and the chain's unique (consumer, seq)
 * decides a race, waiting for the other seal's transaction. The one that finds its seq taken reads the
 * newer link and links again, so every receipt links to the one before without a lock taken up front.
 */
export async function sealReceipt(
  tx: CommonQueryMethods,
  ring: KeyRing,
  scope: EventScope,
  input: SealInput,
): Promise<ReceiptRow | null> {
  const read = await tx.one(sql.type(sealingRow)`
    SELECT e.*,
      (SELECT to_jsonb(s) FROM (${currentReceiptSecretQuery(scope, input.consumerId)}) s) AS secret,
      (SELECT to_jsonb(k) FROM (${CURRENT_SIGNING_KEY}) k) AS key,
      (SELECT to_jsonb(p) FROM (${lastLinkOf(input.consumerId)}) p) AS previous
    FROM (SELECT 1) AS one LEFT JOIN LATERAL (
      SELECT ${COLUMNS} FROM receipts WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND attempt_id = ${input.attemptId}
    ) e ON true`);
  const { secret: secretFound, key: keyFound, previous: lastRead, ...existing } = read;
  if (existing.id !== null) return receiptRow.parse(existing);
  if (!secretFound) return null;
  const secret = openReceiptSecret(ring, input.consumerId, secretFound);
  // The first seal ever creates the signing key.
  const key = keyFound ? openSigningKey(ring, keyFound) : await currentSigningKey(tx, ring);
  let previous = lastRead;
  for (;;) {
    const row = await insertLinked(tx, scope, input, secret, key, previous);
    if (row) return row;
    previous = await tx.maybeOne(sql.type(previousLink)`${lastLinkOf(input.consumerId)}`);
  }
}

/**
 * The receipt linked after `previous` with its receipt.sealed event, one statement; null when another seal
 * took that place in the chain first.
 */
async function insertLinked(
  tx: CommonQueryMethods,
  scope: EventScope,
  input: SealInput,
  secret: { version: number; secret: Buffer },
  key: { kid: string; privateKey: KeyObject },
  previous: { chain_seq: number; chain_hash: string } | null,
): Promise<ReceiptRow | null> {
  const id = prefixedId('rcpt', 20);
  const sealedAt = new Date().toISOString();
  const body = {
    receipt_id: id,
    consumer_id: input.consumerId,
    mandate: input.mandate,
    quote: input.quote,
    payment: input.payment,
    actor: input.actor,
    sealed_at: sealedAt,
  };
  const link = nextLink(
    previous ? { seq: previous.chain_seq, hash: previous.chain_hash } : null,
    body,
    input.approval,
  );
  const exceptions = input.exceptions.map((e) => ({ ...e, at: sealedAt }));
  const event = {
    receipt_id: id,
    consumer_id: input.consumerId,
    attempt_id: input.attemptId,
    chain_hash: link.hash,
    state: 'paid',
  };
  const row = await tx.maybeOne(sql.type(receiptRow)`
    WITH sealed AS (
      INSERT INTO receipts (id, org_id, project_id, consumer_id, attempt_id, body, approval, chain_seq, chain_prev_hash, chain_approval_hash, chain_body_hash,
        chain_hash, chain_version, receipt_sig, receipt_sig_secret_version, receipt_sig_ed25519, ed25519_kid, exceptions, sealed_at)
      VALUES (${id}, ${scope.orgId}, ${scope.projectId}, ${input.consumerId}, ${input.attemptId}, ${sql.jsonb(body as never)},
        ${input.approval ? sql.jsonb(input.approval as never) : null}, ${link.seq}, ${link.prev_hash}, ${link.approval_hash}, ${link.body_hash},
        ${link.hash}, ${link.version}, ${hmacSignature(secret.secret, link.hash)}, ${secret.version}, ${ed25519Signature(key.privateKey, link.hash)},
        ${key.kid}, ${sql.jsonb(exceptions as never)}, ${sealedAt})
      ON CONFLICT ON CONSTRAINT receipts_chain_key DO NOTHING
      RETURNING ${COLUMNS}),
    announced AS (${eventInsertFrom(scope, 'receipt.sealed', sql.fragment`SELECT ${sql.jsonb(event)} FROM sealed`)})
    SELECT ${COLUMNS} FROM sealed`);
  if (row) afterCommit(tx, () => countEvent('receipt.sealed', event));
  return row;
}

export async function getReceipt(
  db: CommonQueryMethods,
  scope: Pick<EventScope, 'orgId' | 'projectId'>,
  id: string,
  lock = false,
): Promise<ReceiptRow> {
  const row = await db.maybeOne(sql.type(receiptRow)`
    SELECT ${COLUMNS} FROM receipts WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND id = ${id}
    ${lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`);
  if (!row) throw notFound('Receipt');
  return row;
}

export async function listReceipts(
  db: CommonQueryMethods,
  scope: Pick<EventScope, 'orgId' | 'projectId'>,
  consumerId: string,
  page: { limit: number; beforeSeq?: number },
): Promise<ReceiptRow[]> {
  const rows = await db.any(sql.type(receiptRow)`
    SELECT ${COLUMNS} FROM receipts WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND consumer_id = ${consumerId}
      ${page.beforeSeq !== undefined ? sql.fragment`AND chain_seq < ${page.beforeSeq}` : sql.fragment``}
    ORDER BY chain_seq DESC LIMIT ${page.limit}`);
  return [...rows];
}

export const proofHash = (proof: unknown): string =>
  createHash('sha256').update(canonicalize(proof), 'utf8').digest('hex');

export type MoveInput =
  | { move: 'deliver'; result: string; proof: Record<string, unknown> }
  | { move: 'exception'; code: string; detail: string }
  | { move: 'void'; reason: string };

const EVENT_OF: Record<ReceiptMove, EventType> = {
  deliver: 'receipt.delivered',
  exception: 'receipt.exception',
  void: 'receipt.voided',
};

/**
 * Moves a receipt after sealing. Sealing the same delivery proof again, or voiding a voided receipt, is a
 * replay that changes nothing; any other move the state refuses is 409 invalid_transition.
 */
export async function moveReceipt(
  tx: CommonQueryMethods,
  ring: KeyRing,
  scope: EventScope,
  id: string,
  input: MoveInput,
): Promise<ReceiptRow> {
  const row = await getReceipt(tx, scope, id, true);
  if (
    input.move === 'deliver' &&
    row.state === 'delivered' &&
    row.delivery?.proof_hash === proofHash(input.proof) &&
    row.delivery?.result === input.result
  )
    return row;
  if (input.move === 'void' && row.state === 'voided') return row;
  const moved = applyMove(row.state, input.move);
  if (!moved.ok) {
    throw new ApiError(409, 'invalid_transition', `A ${row.state} receipt cannot take a ${input.move}`, {
      state: row.state,
      move: input.move,
    });
  }
  const at = new Date().toISOString();
  let delivery = row.delivery;
  let exceptions = row.exceptions;
  if (input.move === 'deliver') {
    const hash = proofHash(input.proof);
    const key = await currentSigningKey(tx, ring);
    // The delivery proof is sealed to the receipt it belongs to: its signature covers the chain hash too.
    const sig = ed25519Signature(key.privateKey, `${row.chain_hash}:delivery:${hash}`);
    delivery = {
      result: input.result,
      proof: input.proof,
      proof_hash: hash,
      sealed_at: at,
      sig_ed25519: sig,
      kid: key.kid,
    };
  } else {
    const entry =
      input.move === 'exception'
        ? { code: input.code, detail: input.detail, at }
        : { code: 'voided', detail: input.reason, at };
    exceptions = [...exceptions, entry];
  }
  const updated = await tx.one(sql.type(receiptRow)`
    UPDATE receipts SET state = ${moved.to}, delivery = ${delivery ? sql.jsonb(delivery as never) : null}, exceptions = ${sql.jsonb(exceptions as never)}, updated_at = now()
    WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND id = ${id}
    RETURNING ${COLUMNS}`);
  await recordEvent(tx, scope, EVENT_OF[input.move], {
    receipt_id: id,
    consumer_id: row.consumer_id,
    attempt_id: row.attempt_id,
    from: row.state,
    to: moved.to,
  });
  return updated;
}
