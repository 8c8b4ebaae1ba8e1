// A consumer's provisioned x402 receiving wallet: made once at the wallet provider (the caller supplies
// the provider call, so this module stays free of I/O other than SQL) and reused by every later link.
// A provider failure refuses the link with 502 before anything of the link is written.
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../../runtime/database';
import { ApiError } from '../../errors';

export type ProvisionWallet = (consumerId: string) => Promise<{ address: string; providerRef: string }>;

export interface WalletOwner {
  orgId: string;
  projectId: string;
  consumerId: string;
}

const addressOf = (db: CommonQueryMethods, owner: WalletOwner) =>
  db.maybeOneFirst(sql.type(z.object({ address: z.string() }))`
    SELECT address FROM consumer_x402_wallets
    WHERE consumer_id = ${owner.consumerId} AND org_id = ${owner.orgId} AND project_id = ${owner.projectId}`);

export async function receivingWallet(
  db: CommonQueryMethods,
  owner: WalletOwner,
  provision: ProvisionWallet,
): Promise<string> {
  const known = await addressOf(db, owner);
  if (known) return known;
  let made: { address: string; providerRef: string };
  try {
    made = await provision(owner.consumerId);
  } catch (error) {
    throw new ApiError(
      502,
      'wallet_provisioning_failed',
      'The receiving wallet for the provisioned pay_to could not be created; nothing was created, try again',
      { consumer_id: owner.consumerId, reason: (error as Error).message },
    );
  }
  // Two links created at once for one consumer: the provider's idempotency key gave both the same wallet.
  await db.query(sql.unsafe`
    INSERT INTO consumer_x402_wallets (consumer_id, org_id, project_id, address, provider_ref)
    VALUES (${owner.consumerId}, ${owner.orgId}, ${owner.projectId}, ${made.address}, ${made.providerRef})
    ON CONFLICT (consumer_id) DO NOTHING`);
  return (await addressOf(db, owner)) ?? made.address;
}
