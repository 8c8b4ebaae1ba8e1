// Messages of the consent lifecycle, shared by the workflow and the API that signals it.
import { defineSignal } from '@temporalio/workflow';

/** Where a signed mandate's expiry timer stands: revision it applies to and seconds left from now. */
export interface MandateTimer {
  mandateId: string;
  consumerId: string;
  revision: number;
  expiresInSeconds: number;
}

export interface ConsentLifecycleInput {
  consentId: string;
  tokenExpiresInSeconds: number;
  /** Present when the lifecycle is (re)started after signing: it goes straight to holding the mandate. */
  mandate?: MandateTimer;
}

export type ConsentLifecycleOutcome = 'token_expired' | 'mandate_expired' | 'mandate_revoked' | 'closed';

export const mandateSignedSignal = defineSignal<[MandateTimer]>('mandateSigned');
export const mandateAmendedSignal = defineSignal<[MandateTimer]>('mandateAmended');
export const mandateRevokedSignal = defineSignal<[{ mandateId: string }]>('mandateRevoked');
