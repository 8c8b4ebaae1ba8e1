// The ledger rules as pure functions: what each entry kind does to balance_minor and available_minor,
// and which posts are refused. The SQL layer applies exactly these effects under row locks.
import type { EntryKind } from '../../contracts/ledger-entry-kinds';

export interface Slot {
  balance: bigint;
  available: bigint;
}

export interface OpenHold {
  id: string;
  amount: bigint;
  status: 'open' | 'debited' | 'released';
}

export interface Effect {
  /** Signed amount shown on the entry. */
  amount: bigint;
  balanceDelta: bigint;
  availableDelta: bigint;
  /** For a debit against a hold: the remainder released by a second entry in the same transaction. */
  releaseRemainder: bigint;
}

export type Refusal =
  | { code: 'balance_constraint_violation'; reason: 'insufficient_available' | 'debit_exceeds_hold' }
  | {
      code: 'ledger_conflict';
      reason: 'hold_not_found' | 'hold_already_resolved' | 'hold_exists' | 'release_amount_mismatch';
    };

/**
 * Effects per kind, for an unsigned amount `a`:
 * - fund, reconcile, reverse: money in; balance +a, available +a.
 * - hold: reserves; balance 0, available −a (counts against available the moment it is written).
 * - release: returns a whole open hold; balance 0, available +a (a must equal the hold).
 * - debit: money out; against an open hold of h ≥ a it is balance −a, available 0, and h − a is released;
 *   without a hold it is balance −a, available −a.
 * - fee: money out; balance −a, available −a.
 */
export function effectOf(
  kind: EntryKind,
  amount: bigint,
  slot: Slot,
  hold: OpenHold | null | undefined,
): Effect | Refusal {
  const plain = (balanceDelta: bigint, availableDelta: bigint, shown: bigint): Effect | Refusal => {
    if (slot.available + availableDelta < 0n)
      return { code: 'balance_constraint_violation', reason: 'insufficient_available' };
    return { amount: shown, balanceDelta, availableDelta, releaseRemainder: 0n };
  };
  switch (kind) {
    case 'fund':
    case 'reconcile':
    case 'reverse':
      return plain(amount, amount, amount);
    case 'fee':
      return plain(-amount, -amount, -amount);
    case 'hold':
      if (hold) return { code: 'ledger_conflict', reason: 'hold_exists' };
      return plain(0n, -amount, -amount);
    case 'release':
      if (!hold) return { code: 'ledger_conflict', reason: 'hold_not_found' };
      if (hold.status !== 'open') return { code: 'ledger_conflict', reason: 'hold_already_resolved' };
      if (amount !== hold.amount) return { code: 'ledger_conflict', reason: 'release_amount_mismatch' };
      return { amount, balanceDelta: 0n, availableDelta: amount, releaseRemainder: 0n };
    case 'debit':
      if (!hold) return plain(-amount, -amount, -amount);
      if (hold.status !== 'open') return { code: 'ledger_conflict', reason: 'hold_already_resolved' };
      if (amount > hold.amount) return { code: 'balance_constraint_violation', reason: 'debit_exceeds_hold' };
      return {
        amount: -amount,
        balanceDelta: -amount,
        availableDelta: 0n,
        releaseRemainder: hold.amount - amount,
      };
  }
}

export function isRefusal(value: Effect | Refusal): value is Refusal {
  return 'code' in value;
}
