// Messages of the top-up workflows (a Pix top-up, a USDC wallet's deposit watcher), shared by the
// workflows, their activities and the orchestration that starts them.
import { defineSignal, defineUpdate } from '@temporalio/workflow';

export interface WalletTopupInput {
  topupId: string;
  walletId: string;
  orgId: string;
  projectId: string;
  environment: 'live' | 'test';
  /** How long the charge can be paid; the top-up expires after it. */
  expiresInSeconds: number;
  /** Where the PSP notifies a paid charge; the notice is a hint, the charge's state is always asked. */
  notificationUrl: string | null;
}

export interface TopupChargeView {
  txid: string;
  brCode: string;
}

export type WalletTopupOutcome = 'credited' | 'expired' | 'failed';

/** Answers once the PSP's charge exists, with the BR Code the payer pays. */
export const topupChargeUpdate = defineUpdate<TopupChargeView>('topupCharge');
/** The PSP said a charge changed (its webhook); the workflow asks the PSP what. */
export const topupNoticeSignal = defineSignal('topupNotice');

export interface DepositWatchInput {
  walletId: string;
  orgId: string;
  projectId: string;
  environment: 'live' | 'test';
}

/** One look at the chain: how many deposits it credited, or that the wallet is closed for good. */
export type DepositScan = { state: 'watching'; credited: number; nextBlock: string } | { state: 'closed' };

/** Failure types (string constants: minified builds rename classes). */
export const TOPUP_CHARGE_REFUSED = 'TopupChargeRefused';
export const DEPOSITS_UNAVAILABLE = 'DepositsUnavailable';
