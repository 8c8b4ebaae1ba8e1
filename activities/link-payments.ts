// The activities of a link payment: open the rail's charge, ask the rail for the charge's state, and
// settle or release the payment. Each is idempotent: the charge is keyed by the payment's txid, and the
// payment row leaves `pending` only once.
import { ApplicationFailure } from '@temporalio/common';
import {
  getLinkPayment,
  recordPayCode,
  releaseLinkPayment,
  settleLinkPayment,
} from '../domain/payment-links/payments';
import type { LinkRail } from '../domain/payment-links/rails';
import { ChargeRefused, pixCobRail } from '../providers/pix/cob-adapter';
import { LINK_CHARGE_REFUSED } from '../workflows/link-payment-messages';
import type { ActivityDeps } from './index';

export interface OpenLinkChargeInput {
  paymentId: string;
  description: string;
  expiresInSeconds: number;
  notificationUrl: string | null;
}

/** A charge's state as activities return it: JSON only, amounts as decimal strings. */
export type LinkChargeStateView =
  | { state: 'open' }
  | { state: 'paid'; providerRef: string; amountMinor: string }
  | { state: 'closed'; reason: string };

export function linkPaymentActivities(
  deps: ActivityDeps,
  railFor: (rail: 'pix' | 'x402') => LinkRail = defaultRails(deps),
) {
  const paymentOf = async (paymentId: string) => {
    const payment = await getLinkPayment(deps.db, paymentId);
    if (!payment || !payment.rail_ref)
      throw ApplicationFailure.nonRetryable(`no link payment ${paymentId}`, LINK_CHARGE_REFUSED);
    return { payment, ref: payment.rail_ref };
  };
  return {
    async openLinkCharge(input: OpenLinkChargeInput): Promise<{ ref: string; payCode: string }> {
      const { payment, ref } = await paymentOf(input.paymentId);
      try {
        const charge = await railFor(payment.rail).openCharge({
          ref,
          amountMinor: payment.amount_minor,
          payTo: payment.pay_to,
          description: input.description,
          expiresInSeconds: input.expiresInSeconds,
          notificationUrl: input.notificationUrl,
        });
        await recordPayCode(deps.db, payment.id, charge.payCode);
        return { ref: charge.ref, payCode: charge.payCode };
      } catch (error) {
        // A refusal is the rail's answer; anything else (no answer, 5xx) is retried by Temporal.
        if (error instanceof ChargeRefused)
          throw ApplicationFailure.nonRetryable(error.message, LINK_CHARGE_REFUSED, { status: error.status });
        throw error;
      }
    },
    async linkChargeState(paymentId: string): Promise<LinkChargeStateView> {
      const { payment, ref } = await paymentOf(paymentId);
      const state = await railFor(payment.rail).chargeState(ref);
      return state.state === 'paid' ? { ...state, amountMinor: state.amountMinor.toString() } : state;
    },
    async settleLinkPaymentActivity(input: { paymentId: string; providerRef: string }): Promise<void> {
      await settleLinkPayment(deps.db, input.paymentId, input.providerRef);
    },
    async releaseLinkPaymentActivity(input: {
      paymentId: string;
      outcome: 'failed' | 'expired';
      reason: string;
    }): Promise<void> {
      await releaseLinkPayment(deps.db, input.paymentId, input.outcome, input.reason);
    },
  };
}

function defaultRails(deps: ActivityDeps): (rail: 'pix' | 'x402') => LinkRail {
  return (rail) => {
    const baseUrl = deps.config.providerUrls.pix_psp;
    if (rail !== 'pix' || !baseUrl)
      throw ApplicationFailure.nonRetryable(
        `the ${rail} rail is not wired for link payments`,
        LINK_CHARGE_REFUSED,
      );
    return pixCobRail({ baseUrl, timeoutMs: deps.config.providerTimeoutMs });
  };
}
