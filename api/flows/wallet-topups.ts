// Opening a wallet's top-ups over HTTP: a Pix top-up's row, then its workflow (Update-with-Start, the
// caller waiting for the BR Code); and a USDC wallet's deposit address, made on first read, with its
// watcher started or found. The answers are read from PostgreSQL, where the workflows store them.
import { getWallet } from '../../domain/wallets/wallets';
import type { Address } from 'viem';
import { ApiError } from '../../domain/errors';
import type { EventScope } from '../../domain/events/record';
import { depositAddress, type DepositAddressRow } from '../../domain/topups/deposit-addresses';
import { findTopup, openPixTopup, type TopupRow } from '../../domain/topups/topups';
import { depositReader } from '../../providers/x402/deposits';
import { walletProvisioner } from '../../providers/x402/wallets';
import { answerIsStored } from '../../orchestration/errors';
import { ensureDepositWatch } from '../../orchestration/deposit-watch';
import { startWalletTopup } from '../../orchestration/wallet-topups';
import type { TopupCreateBody } from '../../schema/http/topups';
import type { AppDeps } from '../deps';

export const PIX_TOPUP_NOTICE_PATH = '/webhooks/pix/topups';

// A method this gateway has no provider for is one it does not offer: the caller's request cannot be
// served here whatever it retries, so it is a 422 like a currency the method does not carry.
const unavailable = (what: string) =>
  new ApiError(422, 'topup_method_unsupported', `${what} is not configured on this gateway`, {
    reason: 'not_configured',
  });

export async function createPixTopup(
  deps: AppDeps,
  scope: EventScope,
  walletId: string,
  body: TopupCreateBody,
  origin: string,
): Promise<{ topup: TopupRow; replayed: boolean }> {
  // Another project's wallet is not found, whatever this gateway is configured with.
  await getWallet(deps.db, scope.orgId, scope.projectId, walletId);
  if (!deps.config.providerUrls.pix_psp) throw unavailable('The Pix PSP');
  const { topup, replayed } = await openPixTopup(deps.db, scope, {
    walletId,
    amountMinor: BigInt(body.amount_minor),
    attemptId: body.attempt_id ?? null,
    chargeSeconds: deps.config.topups.pixChargeSeconds,
  });
  if (topup.status === 'pending' && !topup.br_code) {
    try {
      await startWalletTopup(deps.temporal, {
        topupId: topup.id,
        walletId,
        orgId: scope.orgId,
        projectId: scope.projectId,
        environment: scope.environment,
        expiresInSeconds: deps.config.topups.pixChargeSeconds,
        notificationUrl: `${origin}${PIX_TOPUP_NOTICE_PATH}`,
        amountMinor: topup.amount_minor,
      });
    } catch (error) {
      // The workflow ended (the PSP refused the charge) before answering: its row says what happened.
      if (!answerIsStored(error)) throw error;
    }
  }
  const stored = (await findTopup(deps.db, topup.id))!;
  // A replay answers whatever the top-up became; a new one needs its charge.
  if (stored.br_code || (replayed && stored.status !== 'pending')) return { topup: stored, replayed };
  throw new ApiError(
    502,
    'provider_error',
    'The Pix PSP could not open the charge; nothing will be credited, try again',
    { topup_id: stored.id, status: stored.status },
  );
}

export async function readDepositAddress(
  deps: AppDeps,
  scope: EventScope,
  walletId: string,
): Promise<DepositAddressRow> {
  await getWallet(deps.db, scope.orgId, scope.projectId, walletId);
  const x402 = deps.config.x402;
  if (!x402?.rpcUrl) throw unavailable('A chain for USDC deposits');
  const reader = depositReader(x402.rpcUrl, x402.chainId, x402.asset as Address);
  const provision = walletProvisioner(deps.config.providerUrls.x402_wallets, deps.config.providerTimeoutMs);
  const row = await depositAddress(deps.db, scope, walletId, {
    network: x402.network,
    asset: x402.asset,
    headBlock: () => reader.headBlock(),
    provision: (id) => provision(id),
  });
  await ensureDepositWatch(deps.temporal, {
    walletId,
    orgId: scope.orgId,
    projectId: scope.projectId,
    environment: scope.environment,
  });
  return row;
}
