// The platform-fee sweep: each tool server's accrued fees (its fee wallet's available balance) move to the
// organization's platform-fee wallet for that currency, one transaction per server, with a `fee` entry out
// of the accrual wallet and a `fund` entry into the organization's wallet under one sweep id. Sweeping twice
// moves nothing the second time (there is nothing left), so the route and the schedule can both run it.
import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool, DatabaseTransactionConnection } from '../../runtime/database';
import { recordEvent, type EventScope } from '../events/record';
import { prefixedId } from '../ids';
import { withLedgerErrors } from '../ledger/conflicts';
import { ledgerTransactionSettings, lockSlot, postLocked } from '../ledger/post';

export interface SweptFee {
  server_id: string;
  currency: string;
  amount_minor: string;
  to_wallet_id: string;
}

const accrualRow = z.object({
  id: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  environment: z.enum(['live', 'test']),
  currency: z.string(),
  fee_wallet_id: z.string(),
});

/** The organization's platform-fee wallet for a currency, in the server's project; made on first sweep. */
async function organizationFeeWallet(
  tx: DatabaseTransactionConnection,
  scope: EventScope,
  currency: string,
): Promise<string> {
  await tx.query(
    sql.unsafe`SELECT pg_advisory_xact_lock(hashtextextended(${`platform-fees:${scope.orgId}:${currency}`}, 0))`,
  );
  const found = await tx.maybeOneFirst(sql.type(z.object({ id: z.string() }))`
    SELECT id FROM wallets WHERE org_id = ${scope.orgId} AND currency = ${currency}
      AND metadata->>'role' = 'organization_platform_fees' ORDER BY created_at LIMIT 1`);
  if (found) return found;
  const id = prefixedId('wal');
  await tx.query(sql.unsafe`
    INSERT INTO wallets (id, org_id, project_id, display_name, currency, metadata)
    VALUES (${id}, ${scope.orgId}, ${scope.projectId}, ${`Platform fees (${currency})`}, ${currency},
            ${sql.jsonb({ role: 'organization_platform_fees' })})`);
  await tx.query(sql.unsafe`
    INSERT INTO wallet_balances (wallet_id, org_id, project_id, currency) VALUES (${id}, ${scope.orgId}, ${scope.projectId}, ${currency})`);
  await recordEvent(tx, scope, 'wallet.created', { wallet_id: id, currency, agent_id: null });
  return id;
}

async function sweepOne(db: DatabasePool, server: z.infer<typeof accrualRow>): Promise<SweptFee | null> {
  const scope: EventScope = {
    orgId: server.org_id,
    projectId: server.project_id,
    environment: server.environment,
  };
  return withLedgerErrors(() =>
    db.transaction(async (tx) => {
      await ledgerTransactionSettings(tx);
      const to = await organizationFeeWallet(tx, scope, server.currency);
      // Lock order: the fee wallet's slot first, as a paid call's settlement takes it last.
      const from = await lockSlot(tx, scope, server.fee_wallet_id, server.currency);
      if (from.available_minor <= 0n) return null;
      const amount = from.available_minor;
      const sweepId = prefixedId('fsw');
      await postLocked(
        tx,
        scope,
        {
          walletId: server.fee_wallet_id,
          currency: server.currency,
          kind: 'fee',
          amount,
          externalRef: `fee-sweep:${sweepId}`,
          metadata: { role: 'platform_fee_sweep', tool_server_id: server.id },
        },
        from,
      );
      const slot = await lockSlot(tx, scope, to, server.currency);
      await postLocked(
        tx,
        scope,
        {
          walletId: to,
          currency: server.currency,
          kind: 'fund',
          amount,
          externalRef: `fee-sweep:${sweepId}`,
          metadata: { role: 'platform_fee_sweep', tool_server_id: server.id },
        },
        slot,
      );
      await tx.query(sql.unsafe`
        INSERT INTO tool_server_fee_sweeps (id, org_id, server_id, currency, amount_minor, to_wallet_id)
        VALUES (${sweepId}, ${server.org_id}, ${server.id}, ${server.currency}, ${amount.toString()}, ${to})`);
      await recordEvent(tx, scope, 'tool_server.fees_swept', {
        sweep_id: sweepId,
        tool_server_id: server.id,
        currency: server.currency,
        amount_minor: amount.toString(),
        to_wallet_id: to,
      });
      return {
        server_id: server.id,
        currency: server.currency,
        amount_minor: amount.toString(),
        to_wallet_id: to,
      };
    }),
  );
}

/** Sweeps every tool server of one organization (the route), or of every organization (the schedule). */
export async function sweepPlatformFees(db: DatabasePool, orgId: string | null): Promise<SweptFee[]> {
  const servers = await db.any(sql.type(accrualRow)`
    SELECT s.id, s.org_id, s.project_id, s.environment, s.currency, s.fee_wallet_id FROM tool_servers s
    JOIN wallet_balances b ON b.wallet_id = s.fee_wallet_id AND b.currency = s.currency
    WHERE b.available_minor > 0 ${orgId ? sql.fragment`AND s.org_id = ${orgId}` : sql.fragment``}
    ORDER BY s.id`);
  const moved: SweptFee[] = [];
  for (const server of servers) {
    const swept = await sweepOne(db, server);
    if (swept) moved.push(swept);
  }
  return moved;
}
