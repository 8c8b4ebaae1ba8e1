// Messages of the KYC onboarding workflow, shared by the workflow, its activities and the orchestration
// that starts it and passes it the provider's verified webhooks.
import { defineQuery, defineSignal } from '@temporalio/workflow';

export type KycOnboardingStatus = 'pending' | 'documentscopy_pending' | 'approved' | 'rejected';

export interface KycOnboardingInput {
  proposalId: string;
  /** The first wait for the provider before asking it unprompted; doubled after each quiet wait. */
  pollInitialSeconds: number;
  /** The longest quiet wait between two asks (the backoff's ceiling). */
  pollMaxSeconds: number;
  /** The first wait before a failed Pix key registration is tried again; doubled up to `pollMaxSeconds`. */
  pixRetrySeconds: number;
}

/** Where the proposal stands after one look at the provider. */
export interface KycCheckStep {
  status: KycOnboardingStatus;
  /** The provider approved, but its account is not open at the bank yet. */
  approvedUpstream: boolean;
  /** The provider could not be asked this time; the status is the recorded one. */
  unreachable: boolean;
  /** The provider's reason, once rejected. */
  reason: string | null;
}

/** What the workflow shows a query: the last state it recorded. */
export interface KycOnboardingView {
  status: KycOnboardingStatus;
  checks: number;
  notices: number;
  pixKeyRegistered: boolean;
  pixKeyAttempts: number;
}

export interface KycOnboardingResult {
  status: 'approved' | 'rejected';
  reason: string | null;
}

/** A verified provider webhook about the proposal: a prompt to look, not the state itself. */
export const kycProviderNoticeSignal =
  defineSignal<[{ eventId: string; status: string | null }]>('kycProviderNotice');
export const kycOnboardingStateQuery = defineQuery<KycOnboardingView>('kycOnboardingState');
