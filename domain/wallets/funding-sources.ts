// Funding sources: a wallet's currency slot bound to a provider connection whose rail carries that currency.
import { sql, UniqueIntegrityConstraintViolationError } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods, DatabasePool } from '../../runtime/database';
import { ApiError, notFound } from '../errors';
import { recordEvent, type EventScope } from '../events/record';
import { railCarries, type Currency } from '../../contracts/currencies';

export const fundingSourceRow = z.object({
  wallet_id: z.string(),
  connection_id: z.string(),
  currency: z.string(),
  enabled: z.boolean(),
  created_at: z.string(),
  metadata: z.record(z.unknown()),
});
export type FundingSourceRow = z.infer<typeof fundingSourceRow>;

const connectionRow = z.object({
  id: z.string(),
  rail: z.string().nullable(),
  status: z.string(),
  settings: z.record(z.unknown()),
});
// Rails that settle on chain pay out to the connection's own wallet address.
const ONCHAIN_RAILS = new Set(['onchain', 'x402']);
const COLUMNS = sql.fragment`wallet_id, connection_id, currency, enabled, created_at, metadata`;

export async function bindFundingSource(
  db: DatabasePool,
  scope: EventScope,
  walletId: string,
  input: { connectionId: string; currency: Currency; metadata: Record<string, unknown> },
): Promise<FundingSourceRow> {
  return db.transaction(async (tx) => {
    const wallet = await tx.maybeOne(sql.type(z.object({ id: z.string() }))`
      SELECT id FROM wallets WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND id = ${walletId} FOR SHARE`);
    if (!wallet) throw notFound('Wallet');
    const connection = await tx.maybeOne(sql.type(connectionRow)`
      SELECT id, rail, status, settings FROM provider_connections
      WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND id = ${input.connectionId}`);
    if (!connection)
      throw new ApiError(404, 'connection_not_found', 'No connection with this id in the project', {
        connection_id: input.connectionId,
      });
    if (connection.status !== 'active')
      throw new ApiError(409, 'connection_not_active', `The connection is ${connection.status}`, {
        status: connection.status,
      });
    if (connection.rail === null || !railCarries(connection.rail, input.currency)) {
      throw new ApiError(
        409,
        'funding_rail_mismatch',
        `The connection's ${connection.rail ?? 'missing'} rail does not carry ${input.currency}`,
        { rail: connection.rail, currency: input.currency },
      );
    }
    if (ONCHAIN_RAILS.has(connection.rail) && typeof connection.settings.onchain_address !== 'string') {
      throw new ApiError(
        409,
        'no_onchain_wallet',
        'The connection has no on-chain wallet address to fund from',
        { connection_id: connection.id, rail: connection.rail },
      );
    }
    try {
      const row = await tx.one(sql.type(fundingSourceRow)`
        INSERT INTO wallet_funding_sources (wallet_id, org_id, project_id, connection_id, currency, metadata)
        VALUES (${walletId}, ${scope.orgId}, ${scope.projectId}, ${input.connectionId}, ${input.currency}, ${sql.jsonb(input.metadata as never)})
        RETURNING ${COLUMNS}`);
      await recordEvent(tx, scope, 'wallet.funding_source_bound', {
        wallet_id: walletId,
        connection_id: input.connectionId,
        currency: input.currency,
      });
      return row;
    } catch (error) {
      if (error instanceof UniqueIntegrityConstraintViolationError) {
        throw new ApiError(
          409,
          'funding_source_conflict',
          'The wallet already has a funding source for this connection or currency',
          { connection_id: input.connectionId, currency: input.currency },
        );
      }
      throw error;
    }
  });
}

export async function listFundingSources(
  db: CommonQueryMethods,
  orgId: string,
  projectId: string,
  walletId: string,
): Promise<FundingSourceRow[]> {
  const rows = await db.any(sql.type(fundingSourceRow)`
    SELECT ${COLUMNS} FROM wallet_funding_sources WHERE org_id = ${orgId} AND project_id = ${projectId} AND wallet_id = ${walletId}
    ORDER BY created_at, connection_id`);
  return [...rows];
}

export async function unbindFundingSource(
  db: DatabasePool,
  scope: EventScope,
  walletId: string,
  connectionId: string,
): Promise<FundingSourceRow> {
  return db.transaction(async (tx) => {
    const row = await tx.maybeOne(sql.type(fundingSourceRow)`
      DELETE FROM wallet_funding_sources
      WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND wallet_id = ${walletId} AND connection_id = ${connectionId}
      RETURNING ${COLUMNS}`);
    if (
      !row &&
      !(await tx.exists(
        sql.unsafe`SELECT 1 FROM wallets WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND id = ${walletId}`,
      ))
    ) {
      throw notFound('Wallet');
    }
    if (!row)
      throw new ApiError(
        404,
        'funding_source_not_found',
        'The wallet has no funding source bound to this connection',
        { connection_id: connectionId },
      );
    await recordEvent(tx, scope, 'wallet.funding_source_unbound', {
      wallet_id: walletId,
      connection_id: connectionId,
      currency: row.currency,
    });
    return row;
  });
}
