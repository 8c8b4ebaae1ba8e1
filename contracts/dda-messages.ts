// Messages of the DDA-registration workflow, shared by the workflow, its activities and the orchestration
// that starts it, updates it and passes it the provider's confirmation.
import { defineSignal, defineUpdate } from '@temporalio/workflow';

export type DdaStatusView = 'pending' | 'active' | 'error' | 'deleted';

export interface DdaRegistrationInput {
  subscriptionId: string;
  /** Where the provider sends its signed confirmation. */
  callbackUrl: string;
}

/**
 * What a registration call learns: `registered` (this call's ask registered the document), `replayed`
 * (it was registered, refused or ended before; `status` says how it stands), `refused` (the provider
 * said no: `error`), `unavailable` (no answer from the provider: nothing registered, retry with the key).
 */
export interface DdaRegisterAnswer {
  outcome: 'registered' | 'replayed' | 'refused' | 'unavailable';
  status: DdaStatusView;
}

/** What the register activity found or did; the workflow turns it into each caller's answer. */
export type DdaRegisterStep =
  | { step: 'registered' }
  | { step: 'refused'; code: string }
  | { step: 'settled'; status: DdaStatusView; registered: boolean };

export type DdaRegistrationOutcome = 'active' | 'error' | 'deleted' | 'unregistered' | 'settled';

export const ddaRegisterUpdate = defineUpdate<DdaRegisterAnswer>('ddaRegister');
export const ddaDeleteUpdate = defineUpdate<{ status: 'deleted' }>('ddaDelete');
/** The provider's verified confirmation, passed on by the webhook route. */
export const ddaConfirmedSignal = defineSignal<[{ providerSubscriptionId: string }]>('ddaConfirmed');

/** Failure types (string constants: minified builds rename classes). */
export const DDA_PROVIDER_UNAVAILABLE = 'DdaProviderUnavailable';

/** One workflow per registration row. */
export const ddaWorkflowId = (subscriptionId: string): string => `dda/${subscriptionId}`;
