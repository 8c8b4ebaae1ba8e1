// POST /v1/ledger-entries in one round trip: the database function ledger_post (migration 0460) locks the
// wallet and its balance slot, applies ledger_effect (the SQL twin of effectOf), writes the entries, the
// balance, the hold and the outbox events, and commits as one autocommitted statement. A round trip costs
// more than the SQL it carries, and the hot wallet's balance row is now locked for one statement, not seven.
import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool } from '../../runtime/database';
import { ApiError, notFound } from '../errors';
import type { EventScope } from '../events/record';
import { prefixedId, sortableId } from '../ids';
import { effectRefusalError, ledgerConflict, translateLedgerError } from './conflicts';
import { entryRow, type EntryRow } from './entries';
import { LOCK_TIMEOUT, recordRefusal, type PostInput, type PostResult } from './post';

const outcomeFields = { reason: z.string().nullable(), wallet_status: z.string().nullable(), slot_available: z.bigint().nullable(), hold_currency: z.string().nullable() };
const postedRow = z.object({
  refusal: z.null(), ...outcomeFields, ...entryRow.shape,
  balance_minor: z.bigint(), available_minor: z.bigint(), balance_updated_at: z.string(),
});
const refusedRow = z.object({
  refusal: z.enum(['not_found', 'wallet_not_active', 'ledger_conflict', 'balance_constraint_violation']), ...outcomeFields, hold_id: z.string().nullable(),
});
const outcomeRow = z.union([postedRow, refusedRow]);
type RefusedRow = z.infer<typeof refusedRow>;

function refusalError(row: RefusedRow): ApiError {
  switch (row.refusal) {
    case 'not_found':
      return notFound('Wallet');
    case 'wallet_not_active':
      return new ApiError(409, 'wallet_not_active', `The wallet is ${row.wallet_status}; only active wallets accept ledger entries`, { status: row.wallet_status });
    default:
      if (row.reason === 'hold_currency_mismatch') return ledgerConflict('The hold for this attempt is in another currency', { reason: 'hold_currency_mismatch', hold_currency: row.hold_currency });
      return effectRefusalError(row.refusal, row.reason ?? 'unknown', row.slot_available ?? 0n, row.hold_id);
  }
}

/**
 * Posts one entry in its own transaction. Refusals write nothing but their `ledger.entry_refused` event
 * (written by the same statement); a thrown database refusal maps to the same codes as postLocked's.
 */
export async function postEntry(db: DatabasePool, scope: EventScope, input: PostInput): Promise<PostResult> {
  if (input.amount <= 0n) throw new ApiError(400, 'invalid_body', 'amount_minor must be greater than zero', { issues: [{ path: '/amount_minor', message: 'must be > 0', keyword: 'minimum' }] });
  const eventIds = input.kind === 'debit' ? [sortableId('evt'), sortableId('evt')] : [sortableId('evt')];
  let rows: readonly z.infer<typeof outcomeRow>[];
  try {
    rows = await db.any(sql.type(outcomeRow)`
      SELECT * FROM ledger_post(${scope.orgId}, ${scope.projectId}, ${scope.environment}, ${input.walletId}, ${input.currency}, ${input.kind},
        ${input.amount.toString()}::bigint, ${input.mandateId ?? null}, ${input.attemptId ?? null}, ${input.externalRef ?? null},
        ${sql.jsonb((input.metadata ?? {}) as never)}, ${input.kind === 'hold' ? prefixedId('hld') : null}, ${sql.array(eventIds, 'text')}, ${LOCK_TIMEOUT})`);
  } catch (error) {
    const translated = translateLedgerError(error);
    await recordRefusal(db, scope, input, translated);
    throw translated;
  }
  const [first, second] = rows;
  if (first.refusal !== null) throw refusalError(first);
  const balance = { wallet_id: input.walletId, currency: input.currency, balance_minor: first.balance_minor, available_minor: first.available_minor, updated_at: first.balance_updated_at };
  return { entry: entryOf(first), release: second && second.refusal === null ? entryOf(second) : null, balance };
}

function entryOf(row: z.infer<typeof postedRow>): EntryRow {
  return {
    id: row.id, wallet_id: row.wallet_id, org_id: row.org_id, currency: row.currency, kind: row.kind, amount_minor: row.amount_minor, hold_id: row.hold_id,
    mandate_id: row.mandate_id, attempt_id: row.attempt_id, external_ref: row.external_ref, reconciled_at: row.reconciled_at, posted_at: row.posted_at, metadata: row.metadata,
  };
}
