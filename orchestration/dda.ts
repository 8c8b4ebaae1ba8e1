// DDA registrations' workflows: a registration call or a delete starts the registration's workflow or
// joins the running one (Update-with-Start) and waits for its answer; the provider's verified
// confirmation is passed on as a signal. A confirmation for a finished registration changes nothing.
import { WorkflowNotFoundError } from '@temporalio/client';
import type { ddaRegistration } from '../workflows/dda-registration';
import {
  ddaConfirmedSignal,
  ddaDeleteUpdate,
  ddaRegisterUpdate,
  ddaWorkflowId,
  type DdaRegisterAnswer,
  type DdaRegistrationInput,
} from '../workflows/dda-messages';
import { searchAttributes } from '../workflows/search-attributes';
import { signal, updateWithStart, type Orchestrator } from './temporal';

export interface DdaWorkflowScope {
  orgId: string;
  projectId: string;
  environment: string;
  consumerId: string;
  mandateId: string;
}

function startOptions(input: DdaRegistrationInput, scope: DdaWorkflowScope) {
  return {
    workflowId: ddaWorkflowId(input.subscriptionId),
    args: [input] as [DdaRegistrationInput],
    // One run at a time per registration; a later call (a retry after an outage, a delete) may start a new one.
    workflowIdConflictPolicy: 'USE_EXISTING' as const,
    workflowIdReusePolicy: 'ALLOW_DUPLICATE' as const,
    typedSearchAttributes: searchAttributes(scope),
  };
}

export function askDdaRegistration(
  o: Orchestrator,
  input: DdaRegistrationInput,
  scope: DdaWorkflowScope,
): Promise<DdaRegisterAnswer> {
  return updateWithStart<typeof ddaRegistration, DdaRegisterAnswer>(
    o,
    'ddaRegistration',
    startOptions(input, scope),
    ddaRegisterUpdate,
  );
}

export function askDdaDeletion(
  o: Orchestrator,
  input: DdaRegistrationInput,
  scope: DdaWorkflowScope,
): Promise<{ status: 'deleted' }> {
  return updateWithStart<typeof ddaRegistration, { status: 'deleted' }>(
    o,
    'ddaRegistration',
    startOptions(input, scope),
    ddaDeleteUpdate,
  );
}

/** Passes the provider's confirmation on; false when no run of the registration is waiting. */
export async function noteDdaConfirmation(
  o: Orchestrator,
  subscriptionId: string,
  providerSubscriptionId: string,
): Promise<boolean> {
  try {
    await signal(o, ddaWorkflowId(subscriptionId), ddaConfirmedSignal, { providerSubscriptionId });
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}
