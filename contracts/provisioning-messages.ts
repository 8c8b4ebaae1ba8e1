// Messages of the provisioning-run workflow, shared by the workflow, its activities and the orchestration
// that starts it, passes it a verification code and cancels it.
import { defineUpdate } from '@temporalio/workflow';

export type ProvisioningRunStatus =
  'running' | 'awaiting_verification' | 'succeeded' | 'failed' | 'canceled' | 'expired';

/** The run's row holds everything else; the workflow carries ids only, never a credential. */
export interface ProvisioningRunInput {
  runId: string;
  orgId: string;
  projectId: string;
}

/** What the sign-up step learned: the provider sent a code (and how long it holds), or needs none. */
export type SignupStep = { verification: 'required'; expiresInSeconds: number } | { verification: 'none' };

/** What the provider said of a code: accepted, wrong (the run keeps waiting), or no longer valid. */
export type CodeOutcome = 'accepted' | 'invalid' | 'expired';

/** The answer to a code sent to the run: the provider's verdict, or that it could not be asked. */
export type CodeAnswer = { outcome: CodeOutcome } | { outcome: 'unavailable' };

export type ProvisioningOutcome = 'succeeded' | 'failed' | 'canceled' | 'expired';

/**
 * A verification code for the run, sealed (Temporal's history never holds a code); refused with
 * NOT_AWAITING_VERIFICATION unless the run waits for one.
 */
export const provisioningCodeUpdate = defineUpdate<CodeAnswer, [string]>('provisioningCode');
/** Cancels the run unless it has finished; answers how the run ended. */
export const provisioningCancelUpdate = defineUpdate<ProvisioningOutcome>('provisioningCancel');

/** Failure types (string constants: minified builds rename classes). */
export const NOT_AWAITING_VERIFICATION = 'NotAwaitingVerification';
export const SIGNUP_REFUSED = 'SignupRefused';
export const SIGNUP_PROTOCOL = 'SignupProtocol';
