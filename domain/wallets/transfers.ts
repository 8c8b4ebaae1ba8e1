// Transfers between two wallets of one project: a debit on the source and a fund on the destination in
// one transaction, locks taken in wallet-id order so opposite transfers cannot deadlock. No FX is guessed.
import type { DatabasePool } from '../../runtime/database';
import { ApiError, notFound } from '../errors';
import type { EventScope } from '../events/record';
import { prefixedId } from '../ids';
import { withLedgerErrors } from '../ledger/conflicts';
import type { EntryRow } from '../ledger/entries';
import { ledgerTransactionSettings, lockActiveWallet, lockSlot, postLocked } from '../ledger/post';
import type { BalanceRow } from './wallets';
import { findWallet } from './wallets';

export interface TransferInput {
  fromWalletId: string;
  toWalletId: string;
  currency: string;
  toCurrency: string;
  amount: bigint;
  externalRef: string | null;
  metadata: Record<string, unknown>;
}

export interface TransferResult {
  id: string;
  debit: EntryRow;
  credit: EntryRow;
  balances: BalanceRow[];
}

/** The amount as a bigint; zero is refused as the schema's own refusals are. */
export function transferAmount(amountMinor: string): bigint {
  const amount = BigInt(amountMinor);
  if (amount <= 0n)
    throw new ApiError(400, 'invalid_body', 'amount_minor must be greater than zero', {
      issues: [{ path: '/amount_minor', message: 'must be > 0', keyword: 'minimum' }],
    });
  return amount;
}

/** The route rules, pure: a transfer must change slot and must stay in one currency. */
export function transferRefusal(
  input: Pick<TransferInput, 'fromWalletId' | 'toWalletId' | 'currency' | 'toCurrency'>,
): ApiError | null {
  if (input.fromWalletId === input.toWalletId && input.currency === input.toCurrency) {
    return new ApiError(422, 'same_slot_transfer', 'Source and destination are the same wallet and currency');
  }
  if (input.currency !== input.toCurrency) {
    return new ApiError(
      422,
      'unsupported_transfer_route',
      `No route moves ${input.currency} into ${input.toCurrency}; the gateway does not guess an FX rate`,
      { currency: input.currency, to_currency: input.toCurrency },
    );
  }
  return null;
}

export async function transfer(
  db: DatabasePool,
  scope: EventScope,
  input: TransferInput,
): Promise<TransferResult> {
  const refusal = transferRefusal(input);
  if (refusal) throw refusal;
  for (const id of [input.fromWalletId, input.toWalletId]) {
    if (!(await findWallet(db, scope.orgId, scope.projectId, id))) throw notFound('Wallet');
  }
  const id = prefixedId('trf');
  const externalRef = input.externalRef ?? id;
  return withLedgerErrors(() =>
    db.transaction(async (tx) => {
      await ledgerTransactionSettings(tx);
      const ordered = [input.fromWalletId, input.toWalletId].sort();
      for (const walletId of ordered) await lockActiveWallet(tx, scope, walletId);
      const slots = new Map<string, BalanceRow>();
      for (const walletId of ordered)
        slots.set(walletId, await lockSlot(tx, scope, walletId, input.currency));
      const metadata = { ...input.metadata, transfer_id: id };
      const debit = await postLocked(
        tx,
        scope,
        {
          walletId: input.fromWalletId,
          currency: input.currency,
          kind: 'debit',
          amount: input.amount,
          externalRef,
          metadata: { ...metadata, to_wallet_id: input.toWalletId },
        },
        slots.get(input.fromWalletId)!,
      );
      const credit = await postLocked(
        tx,
        scope,
        {
          walletId: input.toWalletId,
          currency: input.currency,
          kind: 'fund',
          amount: input.amount,
          externalRef,
          metadata: { ...metadata, from_wallet_id: input.fromWalletId },
        },
        slots.get(input.toWalletId)!,
      );
      return { id, debit: debit.entry, credit: credit.entry, balances: [debit.balance, credit.balance] };
    }),
  );
}
