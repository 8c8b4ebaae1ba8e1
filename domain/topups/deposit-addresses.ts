// A USDC wallet's deposit address: made once at the wallet provider (the caller supplies that call, so
// this module does only SQL) and the block its watcher scans from. The cursor only moves forward, and
// only after the blocks below it were credited, so a crash can repeat a scan but never skip one.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import { ApiError } from '../errors';
import type { EventScope } from '../events/record';
import { getWallet } from '../wallets/wallets';
import { topupMethodUnsupported } from './topups';

export const depositAddressRow = z.object({
  wallet_id: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  environment: z.enum(['live', 'test']),
  network: z.string(),
  asset: z.string(),
  address: z.string(),
  next_block: z.bigint(),
  created_at: z.string(),
  scanned_at: z.string().nullable(),
});
export type DepositAddressRow = z.infer<typeof depositAddressRow>;

const COLUMNS = sql.fragment`wallet_id, org_id, project_id, environment, network, asset, address, next_block, created_at, scanned_at`;

export interface DepositChain {
  network: string;
  asset: string;
  /** The chain's head now: deposits are looked for from here on. */
  headBlock(): Promise<bigint>;
  /** Makes (or finds again) the wallet's receiving address at the wallet provider. */
  provision(walletId: string): Promise<{ address: string; providerRef: string }>;
}

export async function findDepositAddress(
  db: CommonQueryMethods,
  walletId: string,
): Promise<DepositAddressRow | null> {
  return db.maybeOne(sql.type(depositAddressRow)`
    SELECT ${COLUMNS} FROM wallet_deposit_addresses WHERE wallet_id = ${walletId}`);
}

/** The wallet's address, made on first ask. Only an active USDC wallet of the caller's project has one. */
export async function depositAddress(
  db: CommonQueryMethods,
  scope: EventScope,
  walletId: string,
  chain: DepositChain,
): Promise<DepositAddressRow> {
  const wallet = await getWallet(db, scope.orgId, scope.projectId, walletId);
  if (wallet.currency !== 'USDC') throw topupMethodUnsupported('usdc', wallet.currency);
  const known = await findDepositAddress(db, walletId);
  if (known) return known;
  if (wallet.status !== 'active')
    throw new ApiError(409, 'wallet_not_active', `The wallet is ${wallet.status}; it takes no deposits`, {
      status: wallet.status,
    });
  let made: { address: string; providerRef: string };
  let head: bigint;
  try {
    [made, head] = await Promise.all([chain.provision(walletId), chain.headBlock()]);
  } catch (error) {
    throw new ApiError(
      502,
      'provider_error',
      'The deposit address could not be made; nothing was created, try again',
      { reason: (error as Error).message },
    );
  }
  // Two first asks at once: the provider's idempotency key gave both the same address.
  await db.query(sql.unsafe`
    INSERT INTO wallet_deposit_addresses (wallet_id, org_id, project_id, environment, network, asset, address, provider_ref, next_block)
    VALUES (${walletId}, ${scope.orgId}, ${scope.projectId}, ${scope.environment}, ${chain.network}, ${chain.asset},
            ${made.address}, ${made.providerRef}, ${head.toString()})
    ON CONFLICT (wallet_id) DO NOTHING`);
  return (await findDepositAddress(db, walletId))!;
}

/** Records that every block below `nextBlock` was scanned and credited. */
export async function advanceDepositCursor(
  db: CommonQueryMethods,
  walletId: string,
  nextBlock: bigint,
): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE wallet_deposit_addresses SET next_block = GREATEST(next_block, ${nextBlock.toString()}::bigint), scanned_at = now()
    WHERE wallet_id = ${walletId}`);
}
