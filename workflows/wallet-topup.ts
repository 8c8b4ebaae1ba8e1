// One Pix top-up of a wallet (`topup/<org>/<topup>`): open the charge at the PSP, wait for the PSP's
// notice (or look every minute, in case a notice is lost), ask the PSP for the charge's state rather
// than trusting the notice, then credit the wallet once or, once the charge can no longer be paid, end
// the top-up as expired with nothing credited.
import { ApplicationFailure, condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { watchCharge } from './charge-watch';
import {
  TOPUP_CHARGE_REFUSED,
  topupChargeUpdate,
  topupNoticeSignal,
  type TopupChargeView,
  type WalletTopupInput,
  type WalletTopupOutcome,
} from '../contracts/topup-messages';

const acts = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    nonRetryableErrorTypes: [TOPUP_CHARGE_REFUSED],
  },
});

export async function walletTopup(input: WalletTopupInput): Promise<WalletTopupOutcome> {
  let charge: TopupChargeView | null = null;
  let refusal: string | null = null;
  let noticed = false;
  setHandler(topupChargeUpdate, async () => {
    await condition(() => charge !== null || refusal !== null);
    if (charge) return charge;
    throw ApplicationFailure.nonRetryable(refusal ?? 'refused', TOPUP_CHARGE_REFUSED);
  });
  setHandler(topupNoticeSignal, () => {
    noticed = true;
  });

  try {
    charge = await acts.openTopupCharge({
      topupId: input.topupId,
      expiresInSeconds: input.expiresInSeconds,
      notificationUrl: input.notificationUrl,
    });
  } catch (error) {
    refusal = error instanceof Error ? error.message : 'the PSP refused the charge';
    await acts.endUnpaidTopupActivity({
      topupId: input.topupId,
      outcome: 'failed',
      reason: 'charge_refused',
    });
    return 'failed';
  }

  const watched = await watchCharge({
    expiresInSeconds: input.expiresInSeconds,
    noticed: () => noticed,
    clearNotice: () => {
      noticed = false;
    },
    chargeState: () => acts.topupChargeState(input.topupId),
  });
  if (watched.state === 'paid') {
    await acts.creditPixTopupActivity({
      topupId: input.topupId,
      endToEndId: watched.providerRef,
      amountMinor: watched.amountMinor,
    });
    return 'credited';
  }
  await acts.endUnpaidTopupActivity({ topupId: input.topupId, outcome: 'expired', reason: watched.reason });
  return 'expired';
}
