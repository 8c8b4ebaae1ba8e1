// The activities of a link payment: open the rail's charge, ask the rail for the charge's state, and
// settle or release the payment. Each is idempotent: the charge is keyed by the payment's txid, and the
// payment row leaves `pending` only once.
import { ApplicationFailure } from '@temporalio/common';
import { BaseError, ContractFunctionRevertedError, type Hex } from 'viem';
import {
  getLinkPayment,
  recordPayCode,
  releaseLinkPayment,
  settleLinkPayment,
} from '../domain/payment-links/payments';
import type { LinkRail } from '../domain/payment-links/rails';
import {
  getAuthorization,
  recordSettlementTx,
  type AuthorizationRow,
} from '../domain/payment-links/x402/authorizations';
import { storedPayload, storedRequirements } from '../domain/payment-links/x402/payload';
import { EndpointNotConfigured, requireEndpoint } from '../domain/providers/endpoints';
import { ChargeRefused, pixCobRail } from '../providers/pix/cob-adapter';
import { x402Chain, type X402Chain } from '../providers/x402/chain';
import { facilitatorClient } from '../providers/x402/facilitator';
import type { Environment } from '../domain/tenancy/api-key-format';
import type { X402Settings } from '../runtime/config';
import { LINK_CHARGE_REFUSED, X402_SETTLEMENT_REFUSED } from '../contracts/link-payment-messages';
import type { ActivityDeps } from './deps';

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
  railFor: (rail: 'pix' | 'x402', environment: Environment) => LinkRail = defaultRails(deps),
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
        const charge = await railFor(payment.rail, payment.environment).openCharge({
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
      const state = await railFor(payment.rail, payment.environment).chargeState(ref);
      return state.state === 'paid' ? { ...state, amountMinor: state.amountMinor.toString() } : state;
    },
    async settleLinkPaymentActivity(input: { paymentId: string; providerRef: string }): Promise<void> {
      await settleLinkPayment(deps.db, input.paymentId, input.providerRef, deps.config.encryptionKeys);
    },
    ...x402SettlementActivities(deps),
    async releaseLinkPaymentActivity(input: {
      paymentId: string;
      outcome: 'failed' | 'expired';
      reason: string;
    }): Promise<void> {
      await releaseLinkPayment(deps.db, input.paymentId, input.outcome, input.reason);
    },
  };
}

/** The Pix PSP of the link's environment: a test link's charge is opened and asked about at the sandbox. */
function defaultRails(deps: ActivityDeps): (rail: 'pix' | 'x402', environment: Environment) => LinkRail {
  return (rail, environment) => {
    if (rail !== 'pix')
      throw ApplicationFailure.nonRetryable(
        `the ${rail} rail is not wired for link payments`,
        LINK_CHARGE_REFUSED,
      );
    try {
      return pixCobRail({
        baseUrl: requireEndpoint(deps.config, 'pix_psp', environment),
        timeoutMs: deps.config.providerTimeoutMs,
      });
    } catch (error) {
      if (error instanceof EndpointNotConfigured)
        throw ApplicationFailure.nonRetryable(error.message, LINK_CHARGE_REFUSED);
      throw error;
    }
  };
}

/**
 * The x402 settlement, split at the broadcast so a crash between broadcast and confirmation is safe: the
 * broadcast first looks for its own earlier work (the recorded hash, else the token's AuthorizationUsed
 * log, for a crash after sending but before recording), and only then sends, recording the hash at once.
 */
function x402SettlementActivities(deps: ActivityDeps) {
  const settingsOf = (): X402Settings => {
    if (!deps.config.x402)
      throw ApplicationFailure.nonRetryable('the x402 rail is not configured', X402_SETTLEMENT_REFUSED);
    return deps.config.x402;
  };
  const chainOf = (settings: X402Settings): X402Chain | null =>
    settings.rpcUrl ? x402Chain(settings.rpcUrl, settings.chainId, settings.settlerKey) : null;
  const authorizationOf = async (paymentId: string): Promise<AuthorizationRow> => {
    const row = await getAuthorization(deps.db, paymentId);
    if (!row)
      throw ApplicationFailure.nonRetryable(
        `no x402 authorization for ${paymentId}`,
        X402_SETTLEMENT_REFUSED,
      );
    return row;
  };
  return {
    async broadcastX402Settlement(paymentId: string): Promise<string> {
      const settings = settingsOf();
      const row = await authorizationOf(paymentId);
      if (row.tx_hash) return row.tx_hash;
      const chain = chainOf(settings);
      const asset = row.asset as Hex;
      const payer = row.payer as Hex;
      const nonce = row.nonce as Hex;
      if (chain && (await chain.authorizationUsed(asset, payer, nonce))) {
        const spentBy = await chain.findAuthorizationTx(asset, payer, nonce);
        if (!spentBy)
          throw ApplicationFailure.nonRetryable(
            'the authorization was canceled on chain',
            X402_SETTLEMENT_REFUSED,
          );
        return recordSettlementTx(deps.db, paymentId, spentBy);
      }
      if (settings.facilitatorUrl) {
        const settled = await facilitatorClient(
          settings.facilitatorUrl,
          deps.config.providerTimeoutMs,
        ).settle(storedPayload(settings, row), storedRequirements(settings, row));
        if (!settled.success || !settled.transaction)
          throw ApplicationFailure.nonRetryable(
            `the facilitator refused to settle: ${settled.errorReason ?? 'unknown'}`,
            X402_SETTLEMENT_REFUSED,
          );
        return recordSettlementTx(deps.db, paymentId, settled.transaction);
      }
      let hash: Hex;
      try {
        hash = await chain!.broadcastTransfer(asset, {
          from: payer,
          to: row.pay_to as Hex,
          value: row.value,
          validAfter: row.valid_after,
          validBefore: row.valid_before,
          nonce,
          signature: row.signature as Hex,
        });
      } catch (error) {
        // The node simulated the call and it reverts (expired, spent, unfunded): sending again cannot help.
        if (
          error instanceof BaseError &&
          error.walk((cause) => cause instanceof ContractFunctionRevertedError)
        )
          throw ApplicationFailure.nonRetryable(
            `the transfer reverts: ${error.shortMessage}`,
            X402_SETTLEMENT_REFUSED,
          );
        throw error;
      }
      return recordSettlementTx(deps.db, paymentId, hash);
    },
    async confirmX402Settlement(input: {
      paymentId: string;
      txHash: string;
    }): Promise<'success' | 'reverted'> {
      const settings = settingsOf();
      const chain = chainOf(settings);
      // A facilitator without a chain of our own to ask answered /settle only after the transaction landed.
      if (!chain) return 'success';
      const receipt = await chain.receipt(input.txHash as Hex, 20_000);
      if (!receipt) throw new Error(`transaction ${input.txHash} is not known to the chain yet`);
      return receipt.status;
    },
  };
}
