// Posting to the ledger inside a caller's transaction (transfers, spends, consumer payments): lock the wallet
// (shared) and its balance row (exclusive) in that fixed order, apply the pure effect of the entry, append the
// entry and update the balance. A lone post over HTTP takes the one-statement path in post-entry.ts.
import { sql, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabaseTransactionConnection } from '../../runtime/database';
import { ApiError, notFound } from '../errors';
import { eventInsertFrom, recordEvent, type EventScope } from '../events/record';
import { afterCommit } from '../../runtime/telemetry/after-commit';
import { countEvent } from '../../runtime/telemetry/metrics';
import { prefixedId } from '../ids';
import { balanceRow, type BalanceRow } from '../wallets/wallets';
import { effectRefusalError, ledgerConflict } from './conflicts';
import type { EntryKind } from '../../contracts/ledger-entry-kinds';
import { effectOf, isRefusal, type OpenHold } from './effects';
import { ENTRY_COLUMNS, entryRow, type EntryRow } from './entries';

export interface PostInput {
  walletId: string;
  currency: string;
  kind: EntryKind;
  amount: bigint;
  mandateId?: string | null;
  attemptId?: string | null;
  externalRef?: string | null;
  metadata?: Record<string, unknown>;
  /**
   * The agent a hold or debit was decided as by the policy gate: what a budget counts it under. A debit of
   * a hold that names none takes its hold's.
   */
  agentId?: string | null;
}

export interface PostResult {
  entry: EntryRow;
  /** The remainder released when a debit consumed less than its hold. */
  release: EntryRow | null;
  balance: BalanceRow;
}

const holdRow = z.object({
  id: z.string(),
  currency: z.string(),
  amount_minor: z.bigint(),
  status: z.enum(['open', 'debited', 'released']),
});
const statusRow = z.object({ status: z.string(), lock_timeout: z.string() });
export const LOCK_TIMEOUT = '5s';

/**
 * Locks the wallet row for key share: posts run side by side, while a freeze or close (FOR UPDATE) waits for
 * them and they for it. The same statement sets this transaction's lock wait, saving a round trip.
 */
export async function lockActiveWallet(
  tx: CommonQueryMethods,
  scope: EventScope,
  walletId: string,
): Promise<void> {
  const wallet = await tx.maybeOne(sql.type(statusRow)`
    SELECT status, set_config('lock_timeout', ${LOCK_TIMEOUT}, true) AS lock_timeout
    FROM wallets WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND id = ${walletId} FOR KEY SHARE`);
  if (!wallet) throw notFound('Wallet');
  if (wallet.status !== 'active') {
    throw new ApiError(
      409,
      'wallet_not_active',
      `The wallet is ${wallet.status}; only active wallets accept ledger entries`,
      { status: wallet.status },
    );
  }
}

/**
 * lockActiveWallet then lockSlot, in one statement when the slot exists (its lock order: wallet, then slot);
 * one by one otherwise, creating the slot.
 */
export async function lockActiveSlot(
  tx: CommonQueryMethods,
  scope: EventScope,
  walletId: string,
  currency: string,
): Promise<BalanceRow> {
  const row = await tx.maybeOne(sql.type(balanceRow.merge(statusRow))`
    SELECT w.status, set_config('lock_timeout', ${LOCK_TIMEOUT}, true) AS lock_timeout,
      b.wallet_id, b.currency, b.balance_minor, b.available_minor, b.updated_at
    FROM wallets w JOIN wallet_balances b ON b.wallet_id = w.id AND b.currency = ${currency}
    WHERE w.org_id = ${scope.orgId} AND w.project_id = ${scope.projectId} AND w.id = ${walletId}
    FOR KEY SHARE OF w FOR UPDATE OF b`);
  if (!row || row.status !== 'active') {
    await lockActiveWallet(tx, scope, walletId);
    return lockSlot(tx, scope, walletId, currency);
  }
  const { status: _status, lock_timeout: _timeout, ...slot } = row;
  return slot;
}

/**
 * Locks the (wallet, currency) slot, creating it on first use. `beside`: a write of the caller's (an insert
 * that returns nothing) made in the same statement as the first lock.
 */
export async function lockSlot(
  tx: CommonQueryMethods,
  scope: EventScope,
  walletId: string,
  currency: string,
  beside?: FragmentSqlToken,
): Promise<BalanceRow> {
  const lock = (write?: FragmentSqlToken) =>
    tx.maybeOne(sql.type(balanceRow)`
    ${write ? sql.fragment`WITH beside AS (${write})` : sql.fragment``}
    SELECT wallet_id, currency, balance_minor, available_minor, updated_at FROM wallet_balances
    WHERE wallet_id = ${walletId} AND currency = ${currency} FOR UPDATE`);
  const existing = await lock(beside);
  if (existing) return existing;
  await tx.query(sql.unsafe`
    INSERT INTO wallet_balances (wallet_id, org_id, project_id, currency) VALUES (${walletId}, ${scope.orgId}, ${scope.projectId}, ${currency})
    ON CONFLICT (wallet_id, currency) DO NOTHING`);
  return (await lock())!;
}

/** An attempt's hold as `lockHeld` reads it: under its lock, with the entry that resolved it. */
export interface HeldSlot {
  walletId: string;
  slot: BalanceRow;
  hold: LockedHold & { resolved_entry_id: bigint | null };
}

const heldRow = balanceRow.extend({
  hold_id: z.string(),
  hold_currency: z.string(),
  hold_amount_minor: z.bigint(),
  hold_status: z.enum(['open', 'debited', 'released']),
  resolved_entry_id: z.bigint().nullable(),
  lock_timeout: z.string(),
});

/**
 * For debiting or releasing an attempt's hold: the wallet (shared, without the active check, since a frozen
 * wallet still settles holds it granted), its slot and the hold, locked in the ledger's order in one
 * statement that also sets the lock wait. `wallet` is the wallet's id, or a query of it (a consumer's
 * sub-account). Null when any of the three is missing: the caller then takes them one by one to say which.
 */
export async function lockHeld(
  tx: CommonQueryMethods,
  scope: EventScope,
  wallet: string | FragmentSqlToken,
  currency: string,
  attemptId: string,
): Promise<HeldSlot | null> {
  // The row marks are taken in the order they are named: wallet, then slot, then hold.
  const row = await tx.maybeOne(sql.type(heldRow)`
    SELECT b.wallet_id, b.currency, b.balance_minor, b.available_minor, b.updated_at,
      h.id AS hold_id, h.currency AS hold_currency, h.amount_minor AS hold_amount_minor, h.status AS hold_status,
      h.resolved_entry_id, set_config('lock_timeout', ${LOCK_TIMEOUT}, true) AS lock_timeout
    FROM wallets w
    JOIN wallet_balances b ON b.wallet_id = w.id AND b.currency = ${currency}
    JOIN wallet_holds h ON h.wallet_id = w.id AND h.attempt_id = ${attemptId}
    WHERE w.org_id = ${scope.orgId} AND w.project_id = ${scope.projectId} AND w.id = ${typeof wallet === 'string' ? wallet : sql.fragment`(${wallet})`}
    FOR SHARE OF w FOR UPDATE OF b, h`);
  if (!row) return null;
  return {
    walletId: row.wallet_id,
    slot: {
      wallet_id: row.wallet_id,
      currency: row.currency,
      balance_minor: row.balance_minor,
      available_minor: row.available_minor,
      updated_at: row.updated_at,
    },
    hold: {
      id: row.hold_id,
      currency: row.hold_currency,
      amount_minor: row.hold_amount_minor,
      status: row.hold_status,
      resolved_entry_id: row.resolved_entry_id,
    },
  };
}

async function insertEntry(
  tx: CommonQueryMethods,
  scope: EventScope,
  input: PostInput,
  effect: {
    kind: EntryKind;
    amount: bigint;
    balanceDelta: bigint;
    availableDelta: bigint;
    holdId: string | null;
    externalRef: string | null;
  },
): Promise<EntryRow> {
  return tx.one(sql.type(entryRow)`
    INSERT INTO wallet_ledger_entries
      (wallet_id, org_id, project_id, currency, kind, amount_minor, balance_delta, available_delta, hold_id, mandate_id, attempt_id, external_ref, metadata)
    VALUES (${input.walletId}, ${scope.orgId}, ${scope.projectId}, ${input.currency}, ${effect.kind}, ${effect.amount.toString()},
            ${effect.balanceDelta.toString()}, ${effect.availableDelta.toString()}, ${effect.holdId}, ${input.mandateId ?? null},
            ${input.attemptId ?? null}, ${effect.externalRef}, ${sql.jsonb((input.metadata ?? {}) as never)})
    RETURNING ${ENTRY_COLUMNS}`);
}

/** The attempt's hold as read under its lock (`FOR UPDATE`), for a caller that has read it already. */
export interface LockedHold {
  id: string;
  currency: string;
  amount_minor: bigint;
  status: 'open' | 'debited' | 'released';
}

/**
 * Posts one entry inside the caller's transaction; the caller has locked the wallet and slot (lockActiveWallet,
 * lockSlot) in the fixed order, and may pass the attempt's hold it has already locked. Throws
 * balance_constraint_violation / ledger_conflict and writes nothing then.
 */
export async function postLocked(
  tx: DatabaseTransactionConnection,
  scope: EventScope,
  input: PostInput,
  slot: BalanceRow,
  locked?: { hold: LockedHold | null },
): Promise<PostResult> {
  if (input.amount <= 0n)
    throw new ApiError(400, 'invalid_body', 'amount_minor must be greater than zero', {
      issues: [{ path: '/amount_minor', message: 'must be > 0', keyword: 'minimum' }],
    });
  const usesHold = input.kind === 'hold' || input.kind === 'release' || input.kind === 'debit';
  let hold: (OpenHold & { currency: string }) | null = null;
  if (usesHold && input.attemptId) {
    const row =
      locked !== undefined
        ? locked.hold
        : await tx.maybeOne(sql.type(holdRow)`
      SELECT id, currency, amount_minor, status FROM wallet_holds WHERE wallet_id = ${input.walletId} AND attempt_id = ${input.attemptId} FOR UPDATE`);
    if (row) hold = { id: row.id, currency: row.currency, amount: row.amount_minor, status: row.status };
  }
  if (hold && hold.currency !== input.currency)
    throw ledgerConflict('The hold for this attempt is in another currency', {
      reason: 'hold_currency_mismatch',
      hold_currency: hold.currency,
    });
  // A debit with an attempt whose hold was already resolved must not fall through to a plain debit.
  const effect = effectOf(
    input.kind,
    input.amount,
    { balance: slot.balance_minor, available: slot.available_minor },
    hold,
  );
  if (isRefusal(effect)) throw effectRefusalError(effect.code, effect.reason, slot.available_minor, hold?.id);
  const holdId = input.kind === 'hold' ? prefixedId('hld') : (hold?.id ?? null);
  let release: EntryRow | null = null;
  if (effect.releaseRemainder > 0n) {
    release = await insertEntry(
      tx,
      scope,
      { ...input, metadata: { remainder_of_hold: holdId } },
      {
        kind: 'release',
        amount: effect.releaseRemainder,
        balanceDelta: 0n,
        availableDelta: effect.releaseRemainder,
        holdId,
        externalRef: input.externalRef ? `${input.externalRef}:remainder` : null,
      },
    );
  }
  // The entry, the balance change, the hold it opens or resolves and the entry's event are one statement:
  // one round trip while the slot is locked.
  const availableDelta = effect.availableDelta + effect.releaseRemainder;
  const spender =
    input.kind === 'debit' && hold && !input.agentId
      ? sql.fragment`(SELECT agent_id FROM wallet_ledger_entries WHERE id = (SELECT hold_entry_id FROM wallet_holds WHERE id = ${hold.id}))`
      : sql.fragment`${input.kind === 'hold' || input.kind === 'debit' ? (input.agentId ?? null) : null}::text`;
  const holdChange =
    input.kind === 'hold'
      ? sql.fragment`, held AS (
      INSERT INTO wallet_holds (id, wallet_id, currency, amount_minor, attempt_id, hold_entry_id)
      SELECT ${holdId}, ${input.walletId}, ${input.currency}, ${input.amount.toString()}, ${input.attemptId ?? null}, entry.id FROM entry)`
      : hold
        ? sql.fragment`, resolved AS (
      UPDATE wallet_holds SET status = ${input.kind === 'debit' ? 'debited' : 'released'}, resolved_entry_id = entry.id, resolved_at = now()
      FROM entry WHERE wallet_holds.id = ${hold.id} AND wallet_holds.status = 'open')`
        : sql.fragment``;
  const written = await tx.one(sql.type(
    entryRow.extend({
      balance_minor: z.bigint(),
      available_minor: z.bigint(),
      balance_updated_at: z.string(),
    }),
  )`
    WITH entry AS (
      INSERT INTO wallet_ledger_entries
        (wallet_id, org_id, project_id, currency, kind, amount_minor, balance_delta, available_delta, hold_id, mandate_id, attempt_id, external_ref, metadata, agent_id)
      VALUES (${input.walletId}, ${scope.orgId}, ${scope.projectId}, ${input.currency}, ${input.kind}, ${effect.amount.toString()},
              ${effect.balanceDelta.toString()}, ${effect.availableDelta.toString()}, ${holdId}, ${input.mandateId ?? null},
              ${input.attemptId ?? null}, ${input.externalRef ?? null}, ${sql.jsonb((input.metadata ?? {}) as never)}, ${spender})
      RETURNING ${ENTRY_COLUMNS}),
    balance AS (
      UPDATE wallet_balances SET balance_minor = balance_minor + ${effect.balanceDelta.toString()}::bigint,
        available_minor = available_minor + ${availableDelta.toString()}::bigint, updated_at = now()
      WHERE wallet_id = ${input.walletId} AND currency = ${input.currency}
      RETURNING balance_minor, available_minor, updated_at)${holdChange},
    posted AS (${eventInsertFrom(
      scope,
      'ledger.entry_posted',
      sql.fragment`SELECT jsonb_build_object('entry_id', entry.id::text, 'wallet_id', entry.wallet_id, 'currency', entry.currency,
        'kind', entry.kind, 'amount_minor', entry.amount_minor::text, 'hold_id', entry.hold_id, 'attempt_id', entry.attempt_id,
        'external_ref', entry.external_ref, 'balance_minor', balance.balance_minor::text, 'available_minor', balance.available_minor::text)
        FROM entry, balance`,
    )})
    SELECT entry.*, balance.balance_minor, balance.available_minor, balance.updated_at AS balance_updated_at FROM entry, balance`);
  const { balance_minor, available_minor, balance_updated_at, ...entryFields } = written;
  const entry: EntryRow = entryFields;
  const balance: BalanceRow = {
    wallet_id: input.walletId,
    currency: input.currency,
    balance_minor,
    available_minor,
    updated_at: balance_updated_at,
  };
  const posted = entryPosted(entry, balance);
  afterCommit(tx, () => countEvent('ledger.entry_posted', posted));
  if (release) await recordEvent(tx, scope, 'ledger.entry_posted', entryPosted(release, balance));
  return { entry, release, balance };
}

/** The `ledger.entry_posted` event of an entry, with the slot's balance after the post. */
function entryPosted(posted: EntryRow, balance: BalanceRow) {
  return {
    entry_id: posted.id,
    wallet_id: posted.wallet_id,
    currency: posted.currency,
    kind: posted.kind,
    amount_minor: posted.amount_minor,
    hold_id: posted.hold_id,
    attempt_id: posted.attempt_id,
    external_ref: posted.external_ref,
    balance_minor: balance.balance_minor,
    available_minor: balance.available_minor,
  };
}

/** Sets the lock wait for this transaction: a post waits briefly for a hot row, then reports ledger_conflict. */
export async function ledgerTransactionSettings(tx: CommonQueryMethods): Promise<void> {
  await tx.query(sql.unsafe`SELECT set_config('lock_timeout', ${LOCK_TIMEOUT}, true)`);
}
