// One buyer's payment of a link (`link-payment/<link>/<payment>`): open the rail's charge, wait for the
// rail's notice (or look every minute, in case a notice is lost), ask the rail for the charge's state
// rather than trusting the notice, then settle the payment or, once the charge can no longer be paid,
// release the use it reserved.
import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { watchCharge } from './charge-watch';
import {
  LINK_CHARGE_REFUSED,
  X402_SETTLEMENT_REFUSED,
  linkChargeUpdate,
  linkRailNoticeSignal,
  type LinkChargeView,
  type LinkPaymentInput,
  type LinkPaymentOutcome,
} from '../contracts/link-payment-messages';

const acts = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    nonRetryableErrorTypes: [LINK_CHARGE_REFUSED, X402_SETTLEMENT_REFUSED],
  },
});

export async function linkPayment(input: LinkPaymentInput): Promise<LinkPaymentOutcome> {
  let charge: LinkChargeView | null = null;
  let refusal: string | null = null;
  let noticed = false;
  setHandler(linkChargeUpdate, async () => {
    await condition(() => charge !== null || refusal !== null);
    if (charge) return charge;
    throw ApplicationFailure.nonRetryable(refusal ?? 'refused', LINK_CHARGE_REFUSED);
  });
  setHandler(linkRailNoticeSignal, () => {
    noticed = true;
  });

  if (input.rail === 'x402') {
    const outcome = await settleX402(input.paymentId);
    if (outcome.settled) charge = { ref: outcome.txHash, payCode: outcome.txHash };
    else refusal = outcome.reason;
    // The buyer's request waits on the update: let it answer before the workflow closes.
    await condition(allHandlersFinished);
    return outcome.settled ? 'succeeded' : 'failed';
  }

  try {
    charge = await acts.openLinkCharge({
      paymentId: input.paymentId,
      description: input.description,
      expiresInSeconds: input.expiresInSeconds,
      notificationUrl: input.notificationUrl,
    });
  } catch (error) {
    refusal = error instanceof Error ? error.message : 'the rail refused the charge';
    await acts.releaseLinkPaymentActivity({
      paymentId: input.paymentId,
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
    chargeState: () => acts.linkChargeState(input.paymentId),
  });
  if (watched.state === 'paid') {
    await acts.settleLinkPaymentActivity({ paymentId: input.paymentId, providerRef: watched.providerRef });
    return 'succeeded';
  }
  await acts.releaseLinkPaymentActivity({
    paymentId: input.paymentId,
    outcome: 'expired',
    reason: watched.reason,
  });
  return 'expired';
}

/**
 * An x402 payment's settlement: broadcast once (the activity finds its own earlier broadcast on a retry),
 * then wait for the receipt. The hash is in the history before the wait, so a worker lost in between
 * resumes by asking the chain about that hash.
 */
async function settleX402(
  paymentId: string,
): Promise<{ settled: true; txHash: string } | { settled: false; reason: string }> {
  let txHash: string;
  try {
    txHash = await acts.broadcastX402Settlement(paymentId);
  } catch (error) {
    await acts.releaseLinkPaymentActivity({ paymentId, outcome: 'failed', reason: 'settlement_refused' });
    return { settled: false, reason: error instanceof Error ? error.message : 'settlement refused' };
  }
  const status = await acts.confirmX402Settlement({ paymentId, txHash });
  if (status === 'success') {
    await acts.settleLinkPaymentActivity({ paymentId, providerRef: txHash });
    return { settled: true, txHash };
  }
  await acts.releaseLinkPaymentActivity({ paymentId, outcome: 'failed', reason: 'transaction_reverted' });
  return { settled: false, reason: `transaction ${txHash} reverted` };
}
