// The card-authorization family of money attempts: the issuer's authorization request is an attempt
// (`card:<issuer authorization id>` in the attempts table, family `card_authorization`, claimed through the engine's own claim) whose steps
// are the functions below. `authorize` decides within the issuer's deadline (card status and controls, the
// mandate, the wallet's policies, the available balance) and on approval holds the amount, keyed by that
// attempt; `settle` debits on capture (partial, or over by up to the network's tolerance), `release` frees
// the hold on reversal or expiry, `refund` credits, and `answer` is the reply the issuer receives. The
// decision is one transaction rather than a workflow run: it must answer in well under two seconds, and a
// duplicate request replays the stored reply's bytes. The decision ends the attempt through the engine's own
// ending (endAttempt, with the card's event); from then on the engine's family (activities/attempts/
// families/card-authorization.ts) owns it: an approval not captured or reversed by its expiry is released by
// its expiry workflow. Every step runs in its caller's transaction.
import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabaseTransactionConnection } from '../../runtime/database';
import type { EventScope } from '../events/record';
import { recordEvent } from '../events/record';
import { prefixedId } from '../ids';
import { lockSlot, postLocked } from '../ledger/post';
import { runGate } from '../policies/gate';
import { claimAttempt, endAttempt, fingerprint, replayBytes } from '../attempts/store';
import {
  DEFAULT_AUTHORIZATION_TTL_MS,
  type CardAuthorizationExpiryInput,
} from '../../contracts/card-authorization';
import { workflowIds } from '../../contracts/workflow-ids';
import { LIMIT_INTERVALS, type CardControls, type LimitInterval } from '../../schema/http/cards';
import type { AgentCardRow } from './cards';
import { controlDecline, needsSpent, overCaptureAllowance } from './controls';

export const CARD_FAMILY = 'card_authorization';
/** The tool name wallet policies see for a card authorization (`card.*` matches it). */
export const CARD_AUTHORIZATION_TOOL = 'card.authorization';

export const cardAttemptId = (issuerAuthorizationId: string): string => `card:${issuerAuthorizationId}`;

export interface Merchant {
  category_code: string | null;
  name: string | null;
  network_id: string | null;
}

export interface AuthorizationRequest {
  issuer: string;
  issuerAuthorizationId: string;
  issuerCardId: string;
  amountMinor: bigint;
  currency: string;
  merchant: Merchant;
  /** When the issuer says the authorization lapses; null: DEFAULT_AUTHORIZATION_TTL_MS from the decision. */
  expiresAt: Date | null;
}

export type DeclineReason =
  | 'card_unknown'
  | 'card_inactive'
  | 'card_closed'
  | 'card_expired'
  | 'currency_mismatch'
  | 'per_authorization_limit'
  | 'periodic_limit'
  | 'merchant_category_blocked'
  | 'merchant_not_allowed'
  | 'mandate_invalid'
  | 'wallet_not_active'
  | 'policy_denied'
  | 'approval_required'
  | 'insufficient_funds';

export type Decision = { approved: true; holdId: string } | { approved: false; reason: DeclineReason };

export const authorizationRow = z.object({
  id: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  card_id: z.string(),
  wallet_id: z.string(),
  attempt_id: z.string(),
  issuer: z.string(),
  issuer_authorization_id: z.string(),
  amount_minor: z.bigint(),
  currency: z.string(),
  merchant: z.record(z.unknown()),
  approved: z.boolean(),
  decline_reason: z.string().nullable(),
  status: z.enum(['pending', 'closed', 'reversed', 'expired', 'declined']),
  held_minor: z.bigint(),
  captured_minor: z.bigint(),
  refunded_minor: z.bigint(),
  applied_seq: z.number(),
  /** An approval not captured or reversed by then is released by the gateway; null when declined. */
  expires_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type AuthorizationRow = z.infer<typeof authorizationRow>;
export const AUTHORIZATION_COLUMNS = sql.fragment`id, org_id, project_id, card_id, wallet_id, attempt_id, issuer,
  issuer_authorization_id, amount_minor, currency, merchant, approved, decline_reason, status, held_minor,
  captured_minor, refunded_minor, applied_seq, expires_at, created_at, updated_at`;

/** What an approved authorization's expiry workflow is started with. */
export function expiryInputOf(
  row: AuthorizationRow,
  environment: EventScope['environment'],
): CardAuthorizationExpiryInput {
  return {
    authorization: {
      orgId: row.org_id,
      projectId: row.project_id,
      environment,
      attemptId: row.attempt_id,
      issuer: row.issuer,
      issuerAuthorizationId: row.issuer_authorization_id,
      amountMinor: row.amount_minor.toString(),
      requestId: null,
    },
    expiresAt: row.expires_at!,
  };
}

const scopeOfCard = (card: AgentCardRow): EventScope => ({
  orgId: card.org_id,
  projectId: card.project_id,
  environment: card.environment,
});
const scopeOfAuthorization = (row: AuthorizationRow, environment: EventScope['environment']): EventScope => ({
  orgId: row.org_id,
  projectId: row.project_id,
  environment,
});

/** The reply the issuer receives; its bytes are stored with the attempt and replayed to a duplicate. */
export function answer(decision: Decision): { approved: boolean; decline_reason?: DeclineReason } {
  return decision.approved ? { approved: true } : { approved: false, decline_reason: decision.reason };
}

const spentRow = z.object({
  daily: z.bigint(),
  weekly: z.bigint(),
  monthly: z.bigint(),
  all_time: z.bigint(),
});

/** What the card's authorizations already count per interval: held while pending, captured once closed. */
async function spentByInterval(
  tx: DatabaseTransactionConnection,
  cardId: string,
): Promise<Record<LimitInterval, bigint>> {
  const counted = sql.fragment`CASE WHEN status = 'pending' THEN amount_minor WHEN status = 'closed' THEN captured_minor ELSE 0 END`;
  const since = (unit: string) =>
    sql.fragment`created_at >= date_trunc(${unit}, now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`;
  return tx.one(sql.type(spentRow)`
    SELECT COALESCE(sum(${counted}) FILTER (WHERE ${since('day')}), 0)::bigint AS daily,
      COALESCE(sum(${counted}) FILTER (WHERE ${since('week')}), 0)::bigint AS weekly,
      COALESCE(sum(${counted}) FILTER (WHERE ${since('month')}), 0)::bigint AS monthly,
      COALESCE(sum(${counted}), 0)::bigint AS all_time
    FROM card_authorizations WHERE card_id = ${cardId} AND approved`);
}

const walletState = z.object({ status: z.string(), agent_id: z.string().nullable() });
const mandateState = z.object({ usable: z.boolean(), per_tx_cap_minor: z.bigint(), currency: z.string() });

/**
 * The family's authorize step, inside the caller's transaction with the card locked: the first refusal
 * wins, checked cheapest first; an approval holds the amount on the wallet under the attempt.
 */
async function decide(
  tx: DatabaseTransactionConnection,
  card: AgentCardRow,
  request: AuthorizationRequest,
  attemptId: string,
): Promise<Decision> {
  const decline = (reason: DeclineReason): Decision => ({ approved: false, reason });
  if (card.status === 'closed') return decline('card_closed');
  if (card.status !== 'active') return decline('card_inactive');
  if (card.expires_at !== null && Date.parse(card.expires_at) <= Date.now()) return decline('card_expired');
  if (request.currency !== card.currency) return decline('currency_mismatch');
  const control = controlDecline(
    card.controls as CardControls,
    {
      amountMinor: request.amountMinor,
      categoryCode: request.merchant.category_code,
      merchantId: request.merchant.network_id,
    },
    needsSpent(card.controls as CardControls)
      ? await spentByInterval(tx, card.id)
      : (Object.fromEntries(LIMIT_INTERVALS.map((interval) => [interval, 0n])) as Record<
          LimitInterval,
          bigint
        >),
  );
  if (control) return decline(control);
  if (card.mandate_id) {
    const mandate = await tx.maybeOne(sql.type(mandateState)`
      SELECT status = 'active' AND expires_at > now() AS usable, per_tx_cap_minor, currency FROM mandates
      WHERE org_id = ${card.org_id} AND project_id = ${card.project_id} AND id = ${card.mandate_id}`);
    if (
      !mandate?.usable ||
      mandate.currency !== card.currency ||
      request.amountMinor > mandate.per_tx_cap_minor
    )
      return decline('mandate_invalid');
  }
  const scope = scopeOfCard(card);
  const wallet = await tx.one(sql.type(walletState)`
    SELECT status, agent_id FROM wallets WHERE org_id = ${card.org_id} AND project_id = ${card.project_id} AND id = ${card.wallet_id} FOR SHARE`);
  if (wallet.status !== 'active') return decline('wallet_not_active');
  const agentId = wallet.agent_id ?? card.wallet_id;
  const gate = await runGate(tx, card.org_id, card.project_id, {
    agentId,
    toolName: CARD_AUTHORIZATION_TOOL,
    amountMinor: request.amountMinor,
    currency: request.currency,
    now: new Date(),
    approved: false,
  });
  // Nobody can approve a held call within the issuer's deadline: a rule asking for approval declines.
  if (gate.decision.decision === 'hold') return decline('approval_required');
  if (gate.decision.decision === 'deny') return decline('policy_denied');
  const slot = await lockSlot(tx, scope, card.wallet_id, card.currency);
  if (slot.available_minor < request.amountMinor) return decline('insufficient_funds');
  const held = await postLocked(
    tx,
    scope,
    {
      walletId: card.wallet_id,
      currency: card.currency,
      kind: 'hold',
      amount: request.amountMinor,
      mandateId: card.mandate_id,
      attemptId,
      agentId,
      metadata: {
        card_id: card.id,
        issuer_authorization_id: request.issuerAuthorizationId,
        merchant: request.merchant,
      },
    },
    slot,
  );
  return { approved: true, holdId: held.entry.hold_id! };
}

/**
 * An authorization request end to end, in the caller's transaction: claim the attempt (a duplicate finds it
 * and gets the first reply's bytes), decide, record the authorization and the attempt's reply, and write the
 * approved or declined event. Returns the reply's bytes, and the authorization's row when this call made it.
 */
export async function authorize(
  tx: DatabaseTransactionConnection,
  card: AgentCardRow,
  request: AuthorizationRequest,
): Promise<{ reply: Buffer; row: AuthorizationRow | null; expiry: CardAuthorizationExpiryInput | null }> {
  const attemptId = cardAttemptId(request.issuerAuthorizationId);
  const body = {
    family: CARD_FAMILY,
    card_id: card.id,
    issuer_authorization_id: request.issuerAuthorizationId,
    amount_minor: request.amountMinor.toString(),
    currency: request.currency,
    merchant: request.merchant,
  };
  const claim = await claimAttempt(tx, {
    family: CARD_FAMILY,
    orgId: card.org_id,
    projectId: card.project_id,
    environment: card.environment,
    walletId: card.wallet_id,
    attemptId,
    fingerprint: fingerprint(card.project_id, card.wallet_id, body),
    request: body,
    // No workflow runs a card decision (it answers inside the issuer's deadline, in one transaction); an
    // approval's expiry workflow, started once it commits, carries this id.
    workflowType: 'cardAuthorizationExpiry',
    workflowId: workflowIds.cardAuthorization(request.issuer, request.issuerAuthorizationId),
    amountMinor: request.amountMinor.toString(),
    currency: request.currency,
  });
  if (!claim.created) return { reply: replayBytes(claim.row), row: null, expiry: null };
  const decision = await decide(tx, card, request, attemptId);
  const reply = answer(decision);
  const id = prefixedId('cauth');
  // The database's clock dates the decision and so its default expiry.
  const expiresAt = decision.approved
    ? sql.fragment`coalesce(${request.expiresAt?.toISOString() ?? null}::timestamptz, now() + ${DEFAULT_AUTHORIZATION_TTL_MS} * interval '1 millisecond')`
    : sql.fragment`NULL`;
  const row = await tx.one(sql.type(authorizationRow)`
    INSERT INTO card_authorizations (id, org_id, project_id, card_id, wallet_id, attempt_id, issuer, issuer_authorization_id,
      amount_minor, currency, merchant, approved, decline_reason, status, held_minor, expires_at)
    VALUES (${id}, ${card.org_id}, ${card.project_id}, ${card.id}, ${card.wallet_id}, ${attemptId}, ${request.issuer},
      ${request.issuerAuthorizationId}, ${request.amountMinor.toString()}, ${request.currency}, ${sql.jsonb(request.merchant as never)},
      ${decision.approved}, ${decision.approved ? null : decision.reason}, ${decision.approved ? 'pending' : 'declined'},
      ${decision.approved ? request.amountMinor.toString() : '0'}, ${expiresAt})
    RETURNING ${AUTHORIZATION_COLUMNS}`);
  const data = {
    authorization_id: id,
    card_id: card.id,
    wallet_id: card.wallet_id,
    attempt_id: attemptId,
    issuer_authorization_id: request.issuerAuthorizationId,
    amount_minor: request.amountMinor,
    currency: request.currency,
    merchant: request.merchant,
  };
  // The attempt's reply is the decision; what follows (captures, reversals, the expiry) is the authorization's.
  await endAttempt(
    tx,
    scopeOfCard(card),
    {
      family: CARD_FAMILY,
      attemptId,
      approvalId: null,
      status: decision.approved ? 'completed' : 'denied',
      reply: { httpStatus: 200, body: reply },
      providerPaymentId: null,
    },
    [
      decision.approved
        ? {
            type: 'card.authorization.approved',
            data: { ...data, hold_id: decision.holdId, expires_at: row.expires_at },
          }
        : { type: 'card.authorization.declined', data: { ...data, decline_reason: decision.reason } },
    ],
  );
  const expiry = decision.approved ? expiryInputOf(row, card.environment) : null;
  return { reply: Buffer.from(JSON.stringify(reply), 'utf8'), row, expiry };
}

const holdState = z.object({ amount_minor: z.bigint(), status: z.enum(['open', 'debited', 'released']) });

/** The wallet (shared) and its slot, in the fixed lock order, then the attempt's hold. */
async function lockForSettlement(
  tx: DatabaseTransactionConnection,
  row: AuthorizationRow,
  scope: EventScope,
) {
  await tx.query(sql.unsafe`SELECT id FROM wallets WHERE id = ${row.wallet_id} FOR SHARE`);
  const slot = await lockSlot(tx, scope, row.wallet_id, row.currency);
  const hold = await tx.maybeOne(sql.type(holdState)`
    SELECT amount_minor, status FROM wallet_holds WHERE wallet_id = ${row.wallet_id} AND attempt_id = ${row.attempt_id}`);
  return { slot, hold: hold?.status === 'open' ? hold : null };
}

export interface MoneyMessage {
  issuerTransactionId: string;
  amountMinor: bigint;
}

/**
 * The settle step: a capture (clearing) debits the wallet. Within the open hold it debits the captured amount
 * and releases the rest; above it, by up to the network's tolerance and while the balance covers the excess,
 * it debits the hold whole and the excess beside it. What lies beyond is recorded as `unfunded_minor`, never
 * taken. A capture after the hold was resolved (a second clearing) debits the balance directly when it can.
 */
export async function settle(
  tx: DatabaseTransactionConnection,
  row: AuthorizationRow,
  environment: EventScope['environment'],
  message: MoneyMessage,
): Promise<void> {
  const scope = scopeOfAuthorization(row, environment);
  let { slot, hold } = await lockForSettlement(tx, row, scope);
  const ref = `card:${message.issuerTransactionId}`;
  const metadata = { card_id: row.card_id, authorization_id: row.id, attempt_id: row.attempt_id };
  const amount = message.amountMinor;
  let ledger = 0n;
  if (hold) {
    const fromHold = amount < hold.amount_minor ? amount : hold.amount_minor;
    const excess = amount - fromHold;
    const posted = await postLocked(
      tx,
      scope,
      {
        walletId: row.wallet_id,
        currency: row.currency,
        kind: 'debit',
        amount: fromHold,
        attemptId: row.attempt_id,
        externalRef: ref,
        metadata,
      },
      slot,
    );
    slot = posted.balance;
    ledger = fromHold;
    if (excess > 0n && excess <= overCaptureAllowance(hold.amount_minor) && slot.available_minor >= excess) {
      // A plain debit beside the hold: its attempt owns no second hold.
      await postLocked(
        tx,
        scope,
        {
          walletId: row.wallet_id,
          currency: row.currency,
          kind: 'debit',
          amount: excess,
          externalRef: `${ref}:over`,
          metadata,
        },
        slot,
      );
      ledger += excess;
    }
  } else if (slot.available_minor >= amount) {
    await postLocked(
      tx,
      scope,
      { walletId: row.wallet_id, currency: row.currency, kind: 'debit', amount, externalRef: ref, metadata },
      slot,
    );
    ledger = amount;
  }
  const transactionId = prefixedId('ctxn');
  await tx.query(sql.unsafe`
    INSERT INTO card_transactions (id, org_id, project_id, authorization_id, issuer, issuer_transaction_id, type, amount_minor, ledger_minor, unfunded_minor, created_at)
    VALUES (${transactionId}, ${row.org_id}, ${row.project_id}, ${row.id}, ${row.issuer}, ${message.issuerTransactionId}, 'capture',
      ${amount.toString()}, ${ledger.toString()}, ${(amount - ledger).toString()}, clock_timestamp())`);
  await tx.query(sql.unsafe`
    UPDATE card_authorizations SET status = CASE WHEN status = 'pending' THEN 'closed' ELSE status END, held_minor = 0,
      captured_minor = captured_minor + ${amount.toString()}::bigint, updated_at = now()
    WHERE id = ${row.id}`);
  await recordEvent(tx, scope, 'card.transaction.captured', {
    transaction_id: transactionId,
    issuer_transaction_id: message.issuerTransactionId,
    ...metadata,
    wallet_id: row.wallet_id,
    currency: row.currency,
    amount_minor: amount,
    ledger_minor: ledger,
    unfunded_minor: amount - ledger,
  });
}

/** The release step: a reversal or an expiry (the issuer's, or the gateway's own) frees what the authorization still holds, once. */
export async function release(
  tx: DatabaseTransactionConnection,
  row: AuthorizationRow,
  environment: EventScope['environment'],
  cause: 'reversal' | 'expiry',
  /** Who let an expiry happen: the issuer's own message, or the gateway's timer at `expires_at`. */
  expiredBy: 'issuer' | 'gateway' = 'issuer',
): Promise<void> {
  const scope = scopeOfAuthorization(row, environment);
  const { slot, hold } = await lockForSettlement(tx, row, scope);
  if (hold)
    await postLocked(
      tx,
      scope,
      {
        walletId: row.wallet_id,
        currency: row.currency,
        kind: 'release',
        amount: hold.amount_minor,
        attemptId: row.attempt_id,
        metadata: { card_id: row.card_id, authorization_id: row.id, cause },
      },
      slot,
    );
  const status = cause === 'reversal' ? 'reversed' : 'expired';
  // A capture that came first keeps the authorization closed; a late reversal only frees what was left.
  await tx.query(sql.unsafe`
    UPDATE card_authorizations SET status = CASE WHEN status = 'pending' THEN ${status} ELSE status END, held_minor = 0, updated_at = now()
    WHERE id = ${row.id}`);
  await recordEvent(
    tx,
    scope,
    cause === 'reversal' ? 'card.authorization.reversed' : 'card.authorization.expired',
    {
      authorization_id: row.id,
      card_id: row.card_id,
      wallet_id: row.wallet_id,
      attempt_id: row.attempt_id,
      released_minor: hold?.amount_minor ?? 0n,
      ...(cause === 'expiry' ? { expired_by: expiredBy } : {}),
    },
  );
}

/** The refund step: the merchant gave money back; the wallet is credited by the issuer's signed message. */
export async function refund(
  tx: DatabaseTransactionConnection,
  row: AuthorizationRow,
  environment: EventScope['environment'],
  message: MoneyMessage,
): Promise<void> {
  const scope = scopeOfAuthorization(row, environment);
  const { slot } = await lockForSettlement(tx, row, scope);
  const metadata = { card_id: row.card_id, authorization_id: row.id, attempt_id: row.attempt_id };
  await postLocked(
    tx,
    scope,
    {
      walletId: row.wallet_id,
      currency: row.currency,
      kind: 'reverse',
      amount: message.amountMinor,
      externalRef: `card:${message.issuerTransactionId}`,
      metadata,
    },
    slot,
  );
  const transactionId = prefixedId('ctxn');
  await tx.query(sql.unsafe`
    INSERT INTO card_transactions (id, org_id, project_id, authorization_id, issuer, issuer_transaction_id, type, amount_minor, ledger_minor, created_at)
    VALUES (${transactionId}, ${row.org_id}, ${row.project_id}, ${row.id}, ${row.issuer}, ${message.issuerTransactionId}, 'refund',
      ${message.amountMinor.toString()}, ${message.amountMinor.toString()}, clock_timestamp())`);
  await tx.query(sql.unsafe`
    UPDATE card_authorizations SET refunded_minor = refunded_minor + ${message.amountMinor.toString()}::bigint, updated_at = now()
    WHERE id = ${row.id}`);
  await recordEvent(tx, scope, 'card.transaction.refunded', {
    transaction_id: transactionId,
    issuer_transaction_id: message.issuerTransactionId,
    ...metadata,
    wallet_id: row.wallet_id,
    currency: row.currency,
    amount_minor: message.amountMinor,
  });
}
