// Maps the database's refusals during a ledger write to the spec's codes: a concurrent conflicting write
// (serialization failure, deadlock, lock timeout, repeated external_ref) is 409 ledger_conflict, which is
// retryable and never reported as insufficient funds; a tripped balance CHECK, or a balance that would leave
// the bigint range, is balance_constraint_violation.
import { CheckIntegrityConstraintViolationError, UniqueIntegrityConstraintViolationError } from 'slonik';
import { sqlState } from '../../runtime/database';
import { ApiError } from '../errors';
import type { Refusal } from './effects';

const CONFLICT_CODES = new Set(['40001', '40P01', '55P03']);

export const ledgerConflict = (message: string, details?: Record<string, unknown>): ApiError =>
  new ApiError(409, 'ledger_conflict', message, details);

export const balanceViolation = (message: string, details?: Record<string, unknown>): ApiError =>
  new ApiError(409, 'balance_constraint_violation', message, details);

/** The error for a refusal of effectOf (or its SQL twin ledger_effect), with the slot's available balance then. */
export function effectRefusalError(
  code: Refusal['code'],
  reason: string,
  available: bigint,
  holdId?: string | null,
): ApiError {
  const details = { reason, available_minor: available.toString(), ...(holdId ? { hold_id: holdId } : {}) };
  if (code === 'balance_constraint_violation')
    return balanceViolation(
      'The entry would make available_minor negative or exceed its hold; nothing was written',
      details,
    );
  return ledgerConflict(`The entry conflicts with the ledger: ${reason}`, details);
}

export const externalRefConflict = (): ApiError =>
  ledgerConflict('An entry with this external_ref already exists on the wallet', {
    reason: 'external_ref_exists',
  });

export function translateLedgerError(error: unknown): unknown {
  if (error instanceof ApiError) return error;
  if (error instanceof UniqueIntegrityConstraintViolationError) {
    if (error.constraint === 'wallet_ledger_entries_external_ref_key') return externalRefConflict();
    if (error.constraint === 'wallet_holds_attempt_key')
      return ledgerConflict('This attempt already holds funds on the wallet', { reason: 'hold_exists' });
  }
  if (error instanceof CheckIntegrityConstraintViolationError) {
    return balanceViolation('The entry would make available_minor negative', {
      reason: 'insufficient_available',
    });
  }
  const state = sqlState(error);
  if (state === '22003')
    return balanceViolation('The entry would take the balance beyond the largest amount a wallet can hold', {
      reason: 'balance_out_of_range',
    });
  if (state && CONFLICT_CODES.has(state))
    return ledgerConflict('A concurrent write to the same wallet conflicted; retry the request', {
      reason: 'concurrent_write',
    });
  return error;
}

/** Runs a ledger write and rethrows database refusals as the spec's ledger codes. */
export async function withLedgerErrors<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    throw translateLedgerError(error);
  }
}
