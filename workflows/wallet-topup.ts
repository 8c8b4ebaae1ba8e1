// One Pix top-up of a wallet (`topup/<org>/<topup>`): open the charge at the PSP, wait for the PSP's
// notice (or look every minute, in case a notice is lost), ask the PSP for the charge's state rather
// than trusting the notice, then credit the wallet once or, once the charge can no longer be paid, end
// the top-up as expired with nothing credited.
import { ApplicationFailure, condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  TOPUP_CHARGE_REFUSED,
  topupChargeUpdate,
  topupNoticeSignal,
  type TopupChargeView,
  type WalletTopupInput,
  type WalletTopupOutcome,
} from './topup-messages';

const acts = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    nonRetryableErrorTypes: [TOPUP_CHARGE_REFUSED],
  },
});

const LOOK_EVERY_MS = 60_000;

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

  const deadline = Date.now() + input.expiresInSeconds * 1000;
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining > 0) await condition(() => noticed, Math.min(remaining, LOOK_EVERY_MS));
    noticed = false;
    // Asked even after the deadline: money that landed at the last moment is credited, never lost.
    const state = await acts.topupChargeState(input.topupId);
    if (state.state === 'paid') {
      await acts.creditPixTopupActivity({
        topupId: input.topupId,
        endToEndId: state.providerRef,
        amountMinor: state.amountMinor,
      });
      return 'credited';
    }
    if (state.state === 'closed' || deadline - Date.now() <= 0) {
      await acts.endUnpaidTopupActivity({
        topupId: input.topupId,
        outcome: 'expired',
        reason: state.state === 'closed' ? state.reason : 'not_paid_in_time',
      });
      return 'expired';
    }
  }
}
