// Receipt states and the moves between them: a sealed receipt is `paid`; sealing a delivery proof makes
// it `delivered`; an exception can be recorded on a paid or delivered receipt; a void ends a receipt that
// was never delivered. `voided` is final. Repeating the move that made the current state is a replay.

export const RECEIPT_STATES = ['paid', 'delivered', 'exception', 'voided'] as const;
export type ReceiptState = (typeof RECEIPT_STATES)[number];
export type ReceiptMove = 'deliver' | 'exception' | 'void';

const MOVES: Record<ReceiptMove, { from: readonly ReceiptState[]; to: ReceiptState }> = {
  deliver: { from: ['paid'], to: 'delivered' },
  exception: { from: ['paid', 'delivered', 'exception'], to: 'exception' },
  void: { from: ['paid', 'exception'], to: 'voided' },
};

export type MoveResult =
  { ok: true; to: ReceiptState } | { ok: false; from: ReceiptState; move: ReceiptMove };

export function applyMove(from: ReceiptState, move: ReceiptMove): MoveResult {
  const rule = MOVES[move];
  return rule.from.includes(from) ? { ok: true, to: rule.to } : { ok: false, from, move };
}
