// The activities of wallet top-ups: a Pix top-up's charge (opened at the PSP under the top-up's txid, its
// state asked), its credit or its end unpaid; and one scan of a USDC wallet's deposit address, crediting
// each confirmed transfer once. Each is idempotent: the charge is keyed by the txid, credits by the
// provider's reference, and the scan's cursor moves only after its credits are written.
import { ApplicationFailure } from '@temporalio/common';
import { creditPixTopup, creditUsdcDeposit } from '../domain/topups/credit';
import { advanceDepositCursor, findDepositAddress } from '../domain/topups/deposit-addresses';
import { endUnpaidTopup, findTopup, recordBrCode } from '../domain/topups/topups';
import { findWallet } from '../domain/wallets/wallets';
import type { LinkRail } from '../domain/payment-links/rails';
import { ChargeRefused, pixCobRail } from '../providers/pix/cob-adapter';
import { depositReader, type DepositReader } from '../providers/x402/deposits';
import {
  DEPOSITS_UNAVAILABLE,
  TOPUP_CHARGE_REFUSED,
  type DepositScan,
  type TopupChargeView,
} from '../contracts/topup-messages';
import type { LinkChargeStateView } from './link-payments';
import type { ActivityDeps } from './deps';

/** At most this many blocks per getLogs call, which RPC providers cap. */
const MAX_BLOCK_RANGE = 5_000n;

export function topupActivities(deps: ActivityDeps) {
  const pspOf = (): LinkRail => {
    const baseUrl = deps.config.providerUrls.pix_psp;
    if (!baseUrl)
      throw ApplicationFailure.nonRetryable('the Pix PSP is not configured', TOPUP_CHARGE_REFUSED);
    return pixCobRail({ baseUrl, timeoutMs: deps.config.providerTimeoutMs });
  };
  const topupOf = async (topupId: string) => {
    const topup = await findTopup(deps.db, topupId);
    if (!topup?.txid) throw ApplicationFailure.nonRetryable(`no Pix top-up ${topupId}`, TOPUP_CHARGE_REFUSED);
    return { topup, txid: topup.txid };
  };
  const readerOf = (): { reader: DepositReader; network: string } => {
    const x402 = deps.config.x402;
    if (!x402?.rpcUrl) throw ApplicationFailure.nonRetryable('no chain is configured', DEPOSITS_UNAVAILABLE);
    return { reader: depositReader(x402.rpcUrl, x402.chainId, x402.asset), network: x402.network };
  };
  return {
    async openTopupCharge(input: {
      topupId: string;
      expiresInSeconds: number;
      notificationUrl: string | null;
    }): Promise<TopupChargeView> {
      const { topup, txid } = await topupOf(input.topupId);
      try {
        const charge = await pspOf().openCharge({
          ref: txid,
          amountMinor: topup.amount_minor,
          payTo: deps.config.topups.pixKey,
          description: `Wallet top-up ${topup.id}`,
          expiresInSeconds: input.expiresInSeconds,
          notificationUrl: input.notificationUrl,
        });
        await recordBrCode(deps.db, topup.id, charge.payCode);
        return { txid, brCode: charge.payCode };
      } catch (error) {
        // A refusal is the PSP's answer; anything else (no answer, 5xx) is retried by Temporal.
        if (error instanceof ChargeRefused)
          throw ApplicationFailure.nonRetryable(error.message, TOPUP_CHARGE_REFUSED, {
            status: error.status,
          });
        throw error;
      }
    },
    async topupChargeState(topupId: string): Promise<LinkChargeStateView> {
      const { txid } = await topupOf(topupId);
      const state = await pspOf().chargeState(txid);
      return state.state === 'paid' ? { ...state, amountMinor: state.amountMinor.toString() } : state;
    },
    async creditPixTopupActivity(input: {
      topupId: string;
      endToEndId: string;
      amountMinor: string;
    }): Promise<void> {
      const credit = await creditPixTopup(deps.db, input.topupId, {
        endToEndId: input.endToEndId,
        amountMinor: BigInt(input.amountMinor),
      });
      if (credit.outcome === 'not_pending')
        deps.log.warn('a Pix top-up was paid after it ended unpaid; nothing was credited', {
          topup_id: input.topupId,
          status: credit.topup.status,
        });
    },
    async endUnpaidTopupActivity(input: {
      topupId: string;
      outcome: 'expired' | 'failed';
      reason: string;
    }): Promise<void> {
      await endUnpaidTopup(deps.db, input.topupId, input.outcome, input.reason);
    },
    async scanUsdcDeposits(input: { walletId: string }): Promise<DepositScan> {
      const address = await findDepositAddress(deps.db, input.walletId);
      const wallet =
        address && (await findWallet(deps.db, address.org_id, address.project_id, input.walletId));
      if (!address || !wallet || wallet.status === 'closed') return { state: 'closed' };
      const { reader, network } = readerOf();
      // A transfer counts once `confirmations` blocks (its own included) are on the chain.
      const confirmed = (await reader.headBlock()) - BigInt(deps.config.topups.usdcConfirmations - 1);
      const from = address.next_block;
      const to = confirmed - from >= MAX_BLOCK_RANGE ? from + MAX_BLOCK_RANGE - 1n : confirmed;
      if (to < from) return { state: 'watching', credited: 0, nextBlock: from.toString() };
      let credited = 0;
      for (const transfer of await reader.transfersTo(address.address, from, to)) {
        if (transfer.value === 0n) continue; // a zero transfer moves no money
        // A frozen wallet throws wallet_not_active: the cursor stays, and the retry credits it later.
        const credit = await creditUsdcDeposit(deps.db, {
          walletId: input.walletId,
          txHash: transfer.txHash,
          logIndex: transfer.logIndex,
          blockNumber: transfer.blockNumber,
          from: transfer.from,
          amountMinor: transfer.value,
          network,
        });
        if (credit.outcome === 'credited') credited++;
      }
      await advanceDepositCursor(deps.db, input.walletId, to + 1n);
      return { state: 'watching', credited, nextBlock: (to + 1n).toString() };
    },
  };
}
