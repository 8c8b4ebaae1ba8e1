// Crediting an inbound TED to the consumer's sub-account it arrived at: the transfer row (keyed by the
// bank's transfer id), the ledger `fund` entry (external_ref `ted-in:<id>`) and the
// `commerce.ted_in.succeeded` event are written in one transaction, so a transfer is credited exactly
// once however often its notice arrives.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import { ApiError } from '../errors';
import type { EventScope } from '../events/record';
import { recordEvent } from '../events/record';
import { ledgerTransactionSettings, lockActiveWallet, lockSlot, postLocked } from '../ledger/post';

export interface InboundTed {
  providerTransferId: string;
  destinationAccount: string;
  amountMinor: bigint;
  payer: Record<string, unknown>;
  receivedAt: string;
}

const accountRow = z.object({
  org_id: z.string(),
  project_id: z.string(),
  environment: z.enum(['live', 'test']),
  consumer_id: z.string(),
  wallet_id: z.string(),
});

export interface InboundTedAccount {
  scope: EventScope;
  consumerId: string;
  walletId: string;
}

/** The consumer sub-account a bank account name stands for (the gateway names sub-accounts by wallet id). */
export async function findInboundAccount(
  db: CommonQueryMethods,
  account: string,
): Promise<InboundTedAccount | null> {
  const row = await db.maybeOne(sql.type(accountRow)`
    SELECT s.org_id, s.project_id, p.environment, s.consumer_id, s.wallet_id
    FROM consumer_sub_accounts s JOIN projects p ON p.org_id = s.org_id AND p.id = s.project_id
    WHERE s.wallet_id = ${account}`);
  if (!row) return null;
  return {
    scope: { orgId: row.org_id, projectId: row.project_id, environment: row.environment },
    consumerId: row.consumer_id,
    walletId: row.wallet_id,
  };
}

export type InboundTedCredit =
  | { outcome: 'credited' | 'already_credited'; ledgerEntryId: string }
  | { outcome: 'unknown_account' }
  | { outcome: 'wallet_not_active' };

const CURRENCY = 'BRL';

export async function creditInboundTed(db: DatabasePool, transfer: InboundTed): Promise<InboundTedCredit> {
  const account = await findInboundAccount(db, transfer.destinationAccount);
  if (!account) return { outcome: 'unknown_account' };
  const { scope } = account;
  try {
    return await db.transaction(async (tx) => {
      const claimed = await tx.maybeOne(sql.type(z.object({ provider_transfer_id: z.string() }))`
        INSERT INTO ted_inbound_transfers
          (provider_transfer_id, org_id, project_id, consumer_id, wallet_id, currency, amount_minor, ledger_entry_id, payer, received_at)
        VALUES (${transfer.providerTransferId}, ${scope.orgId}, ${scope.projectId}, ${account.consumerId}, ${account.walletId},
                ${CURRENCY}, ${transfer.amountMinor.toString()}, 0, ${sql.jsonb(transfer.payer as never)}, ${transfer.receivedAt})
        ON CONFLICT (provider_transfer_id) DO NOTHING RETURNING provider_transfer_id`);
      if (!claimed) {
        const existing = await tx.one(sql.type(z.object({ ledger_entry_id: z.bigint() }))`
          SELECT ledger_entry_id FROM ted_inbound_transfers WHERE provider_transfer_id = ${transfer.providerTransferId}`);
        return { outcome: 'already_credited' as const, ledgerEntryId: existing.ledger_entry_id.toString() };
      }
      await ledgerTransactionSettings(tx);
      await lockActiveWallet(tx, scope, account.walletId);
      const slot = await lockSlot(tx, scope, account.walletId, CURRENCY);
      const posted = await postLocked(
        tx,
        scope,
        {
          walletId: account.walletId,
          currency: CURRENCY,
          kind: 'fund',
          amount: transfer.amountMinor,
          externalRef: `ted-in:${transfer.providerTransferId}`,
          metadata: { rail: 'ted', direction: 'in', provider_transfer_id: transfer.providerTransferId },
        },
        slot,
      );
      const entryId = posted.entry.id.toString();
      await tx.query(sql.unsafe`
        UPDATE ted_inbound_transfers SET ledger_entry_id = ${entryId} WHERE provider_transfer_id = ${transfer.providerTransferId}`);
      await recordEvent(tx, scope, 'commerce.ted_in.succeeded', {
        consumer_id: account.consumerId,
        wallet_id: account.walletId,
        provider_transfer_id: transfer.providerTransferId,
        amount_minor: transfer.amountMinor.toString(),
        currency: CURRENCY,
        ledger_entry_id: entryId,
        payer: transfer.payer,
        received_at: transfer.receivedAt,
      });
      return { outcome: 'credited' as const, ledgerEntryId: entryId };
    });
  } catch (error) {
    // A frozen or closed sub-account takes no money: nothing is written, and a later notice tries again.
    if (error instanceof ApiError && error.code === 'wallet_not_active')
      return { outcome: 'wallet_not_active' };
    throw error;
  }
}
