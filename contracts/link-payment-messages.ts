// Messages of the link-payment workflow, shared by the workflow and the orchestration that starts it.
import { defineSignal, defineUpdate } from '@temporalio/workflow';

export interface LinkPaymentInput {
  paymentId: string;
  linkId: string;
  orgId: string;
  projectId: string;
  environment: 'live' | 'test';
  /** Shown to the payer by their bank. */
  description: string;
  /** How long the charge can be paid; the reserved use is released after it. */
  expiresInSeconds: number;
  notificationUrl: string | null;
  /** Absent in histories from before the x402 rail: those are Pix payments. */
  rail?: 'pix' | 'x402';
}

export interface LinkChargeView {
  ref: string;
  payCode: string;
}

export type LinkPaymentOutcome = 'succeeded' | 'failed' | 'expired';

/** Answers once the rail's charge exists, with what the buyer pays with. */
export const linkChargeUpdate = defineUpdate<LinkChargeView>('linkCharge');
/** The rail said something happened (a PSP webhook); the workflow asks the rail what. */
export const linkRailNoticeSignal = defineSignal('linkRailNotice');

/** Failure types (string constants: minified builds rename classes). */
export const LINK_CHARGE_REFUSED = 'LinkChargeRefused';
/** The chain or facilitator will not settle this x402 authorization (reverts, refused). */
export const X402_SETTLEMENT_REFUSED = 'X402SettlementRefused';
