// What the issuer sends the gateway, applied exactly once and in the issuer's order. The authorization
// request is answered at once; every later message (capture, reversal, expiry, refund) is kept by the
// issuer's message id, so a duplicate finds its row, and applied only after the messages numbered before
// it within its authorization: one that overtakes its predecessors waits in card_issuer_messages until
// they arrive. All of an authorization's messages, and the gateway's own expiry of it, pass one advisory
// lock, so two never interleave.
import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool, DatabaseTransactionConnection } from '../../runtime/database';
import { withLedgerErrors } from '../ledger/conflicts';
import type { Environment } from '../tenancy/api-key-format';
import type { CardAuthorizationExpiryInput } from '../../contracts/card-authorization';
import { ledgerTransactionSettings } from '../ledger/post';
import { lockCardOfIssuer } from './cards';
import {
  AUTHORIZATION_COLUMNS,
  authorizationRow,
  authorize,
  expiryInputOf,
  release,
  refund,
  settle,
  type AuthorizationRequest,
  type AuthorizationRow,
} from './authorization-family';

export type LaterMessage =
  | { type: 'capture' | 'refund'; issuerTransactionId: string; amountMinor: bigint }
  | { type: 'reversal' | 'expiry' };

export interface IssuerMessage {
  issuer: string;
  messageId: string;
  issuerAuthorizationId: string;
  sequence: number;
  message: LaterMessage;
}

const storedMessage = z.object({ sequence: z.number(), type: z.string(), payload: z.record(z.unknown()) });

async function lockAuthorizationKey(
  tx: DatabaseTransactionConnection,
  issuer: string,
  id: string,
): Promise<void> {
  await tx.query(
    sql.unsafe`SELECT pg_advisory_xact_lock(hashtextextended(${`card-authorization:${issuer}:${id}`}, 0))`,
  );
}

async function findAuthorization(
  tx: DatabaseTransactionConnection,
  issuer: string,
  issuerAuthorizationId: string,
): Promise<AuthorizationRow | null> {
  return tx.maybeOne(sql.type(authorizationRow)`
    SELECT ${AUTHORIZATION_COLUMNS} FROM card_authorizations
    WHERE issuer = ${issuer} AND issuer_authorization_id = ${issuerAuthorizationId}`);
}

/** Applies the authorization's waiting messages that come next in its order; returns how many. */
async function drain(
  tx: DatabaseTransactionConnection,
  row: AuthorizationRow,
  environment: Environment,
): Promise<number> {
  let current = row;
  let applied = 0;
  for (;;) {
    const next = await tx.maybeOne(sql.type(storedMessage)`
      SELECT sequence, type, payload FROM card_issuer_messages
      WHERE issuer = ${current.issuer} AND issuer_authorization_id = ${current.issuer_authorization_id}
        AND sequence = ${current.applied_seq + 1} AND applied_at IS NULL`);
    if (!next) return applied;
    // A declined authorization held nothing: whatever the issuer says of it later moves no money.
    if (current.approved) {
      if (next.type === 'reversal' || next.type === 'expiry')
        await release(tx, current, environment, next.type);
      else {
        const money = {
          issuerTransactionId: String(next.payload.issuer_transaction_id),
          amountMinor: BigInt(String(next.payload.amount_minor)),
        };
        if (next.type === 'capture') await settle(tx, current, environment, money);
        else await refund(tx, current, environment, money);
      }
    }
    await tx.query(sql.unsafe`
      UPDATE card_issuer_messages SET applied_at = now()
      WHERE issuer = ${current.issuer} AND issuer_authorization_id = ${current.issuer_authorization_id} AND sequence = ${next.sequence}`);
    current = await tx.one(sql.type(authorizationRow)`
      UPDATE card_authorizations SET applied_seq = ${next.sequence}, updated_at = now() WHERE id = ${current.id}
      RETURNING ${AUTHORIZATION_COLUMNS}`);
    applied += 1;
  }
}

/**
 * Answers an authorization request: the reply's bytes (a duplicate gets the first reply's), after applying
 * any later message of the same authorization that overtook it. A card the gateway does not know is declined
 * without a trace: it names no tenant.
 */
export async function answerAuthorizationRequest(
  db: DatabasePool,
  request: AuthorizationRequest,
): Promise<{ reply: Buffer; replayed: boolean; expiry: CardAuthorizationExpiryInput | null }> {
  return withLedgerErrors(() =>
    db.transaction(async (tx) => {
      await ledgerTransactionSettings(tx);
      await lockAuthorizationKey(tx, request.issuer, request.issuerAuthorizationId);
      const card = await lockCardOfIssuer(tx, request.issuer, request.issuerCardId);
      if (!card)
        return {
          reply: Buffer.from(JSON.stringify({ approved: false, decline_reason: 'card_unknown' }), 'utf8'),
          replayed: false,
          expiry: null,
        };
      const { reply, row, expiry } = await authorize(tx, card, request);
      // A message that overtook the request may close the authorization at once: then nothing expires.
      const closed = row
        ? (await drain(tx, row, card.environment)) > 0 && !(await isPending(tx, row))
        : false;
      return { reply, replayed: row === null, expiry: closed ? null : expiry };
    }),
  );
}

export type Receipt = 'applied' | 'waiting' | 'duplicate';

async function isPending(tx: DatabaseTransactionConnection, row: AuthorizationRow): Promise<boolean> {
  return (await findAuthorization(tx, row.issuer, row.issuer_authorization_id))?.status === 'pending';
}

async function environmentOf(tx: DatabaseTransactionConnection, row: AuthorizationRow): Promise<Environment> {
  return tx.oneFirst(sql.type(z.object({ environment: z.enum(['live', 'test']) }))`
    SELECT environment FROM issuer_cards WHERE id = ${row.card_id}`);
}

/**
 * Keeps a later message once and applies it with whatever it unblocks; `waiting` until its turn comes.
 * `closed` when what it applied ended a pending authorization (captured, reversed or expired by the issuer):
 * its expiry workflow has nothing left to release.
 */
export async function receiveIssuerMessage(
  db: DatabasePool,
  input: IssuerMessage,
): Promise<{ receipt: Receipt; closed: boolean }> {
  return withLedgerErrors(() =>
    db.transaction(async (tx) => {
      await ledgerTransactionSettings(tx);
      await lockAuthorizationKey(tx, input.issuer, input.issuerAuthorizationId);
      const payload =
        input.message.type === 'capture' || input.message.type === 'refund'
          ? {
              issuer_transaction_id: input.message.issuerTransactionId,
              amount_minor: input.message.amountMinor.toString(),
            }
          : {};
      const kept = await tx.maybeOne(sql.type(z.object({ sequence: z.number() }))`
        INSERT INTO card_issuer_messages (issuer, message_id, issuer_authorization_id, sequence, type, payload)
        VALUES (${input.issuer}, ${input.messageId}, ${input.issuerAuthorizationId}, ${input.sequence},
          ${input.message.type}, ${sql.jsonb(payload)})
        ON CONFLICT DO NOTHING RETURNING sequence`);
      if (!kept) return { receipt: 'duplicate', closed: false };
      const row = await findAuthorization(tx, input.issuer, input.issuerAuthorizationId);
      if (!row) return { receipt: 'waiting', closed: false };
      const before = row.applied_seq;
      await drain(tx, row, await environmentOf(tx, row));
      const after = (await findAuthorization(tx, input.issuer, input.issuerAuthorizationId))!;
      return {
        receipt: after.applied_seq >= input.sequence && before < input.sequence ? 'applied' : 'waiting',
        closed: row.status === 'pending' && after.status !== 'pending',
      };
    }),
  );
}

const heldRow = z.object({ id: z.string(), status: z.string(), resolved_entry_id: z.string().nullable() });

/**
 * Where the issuer's messages (and the gateway's expiry) have left an authorization, with the hold its
 * approval placed (`debited` once captured, `released` once reversed or expired); null when unknown.
 */
export async function authorizationState(
  db: DatabasePool,
  issuer: string,
  issuerAuthorizationId: string,
): Promise<{ row: AuthorizationRow; hold: z.infer<typeof heldRow> | null } | null> {
  const row = await db.maybeOne(sql.type(authorizationRow)`
    SELECT ${AUTHORIZATION_COLUMNS} FROM card_authorizations
    WHERE issuer = ${issuer} AND issuer_authorization_id = ${issuerAuthorizationId}`);
  if (!row) return null;
  const hold = await db.maybeOne(sql.type(heldRow)`
    SELECT id, status, resolved_entry_id::text FROM wallet_holds WHERE wallet_id = ${row.wallet_id} AND attempt_id = ${row.attempt_id}`);
  return { row, hold };
}

/**
 * The gateway's expiry of an approved authorization, under the same lock as the issuer's messages: one still
 * pending is released (`card.authorization.expired`, `expired_by: gateway`) and reads `expired`; one a
 * message closed first is left as it is. A capture that arrives after the expiry is forced, as networks do:
 * it debits the wallet as a new debit when the balance covers it (recorded unfunded when not).
 */
export async function expireAuthorization(
  db: DatabasePool,
  issuer: string,
  issuerAuthorizationId: string,
): Promise<{ expired: boolean }> {
  return withLedgerErrors(() =>
    db.transaction(async (tx) => {
      await ledgerTransactionSettings(tx);
      await lockAuthorizationKey(tx, issuer, issuerAuthorizationId);
      const row = await findAuthorization(tx, issuer, issuerAuthorizationId);
      if (row?.status !== 'pending') return { expired: false };
      await release(tx, row, await environmentOf(tx, row), 'expiry', 'gateway');
      return { expired: true };
    }),
  );
}

/**
 * Approved authorizations still pending whose expiry workflow is not known to have started, decided more
 * than `graceSeconds` ago (the issuer route starts it right after the decision commits): what the card
 * expiry sweep starts. Oldest first.
 */
export async function unstartedExpiries(
  db: DatabasePool,
  graceSeconds: number,
  limit: number,
): Promise<CardAuthorizationExpiryInput[]> {
  const rows = await db.any(sql.type(authorizationRow.extend({ environment: z.enum(['live', 'test']) }))`
    SELECT a.*, c.environment FROM (
      SELECT ${AUTHORIZATION_COLUMNS} FROM card_authorizations
      WHERE status = 'pending' AND NOT expiry_started AND created_at < now() - ${graceSeconds} * interval '1 second'
      ORDER BY created_at LIMIT ${limit}
    ) a JOIN issuer_cards c ON c.id = a.card_id
    ORDER BY a.created_at`);
  return rows.map(({ environment, ...row }) => expiryInputOf(row, environment));
}

/** Notes that these authorizations' expiry workflows have started (or had started before). */
export async function markExpiriesStarted(
  db: DatabasePool,
  started: Array<{ issuer: string; issuerAuthorizationId: string }>,
): Promise<void> {
  if (started.length === 0) return;
  await db.query(sql.unsafe`
    UPDATE card_authorizations SET expiry_started = true
    WHERE (issuer, issuer_authorization_id) IN (
      SELECT * FROM unnest(${sql.array(
        started.map((s) => s.issuer),
        'text',
      )}::text[], ${sql.array(
        started.map((s) => s.issuerAuthorizationId),
        'text',
      )}::text[])
    ) AND NOT expiry_started`);
}
