// DDA registrations' workflows: a registration call or a delete starts the registration's workflow or
// joins the running one (Update-with-Start) and waits for its answer; the provider's verified
// confirmation is passed on as a signal (Signal-with-Start: a confirmation nobody waits for still lands).
import type { ddaRegistration } from '../workflows/dda-registration';
import {
  ddaConfirmedSignal,
  ddaDeleteUpdate,
  ddaRegisterUpdate,
  ddaWorkflowId,
  type DdaRegisterAnswer,
  type DdaRegistrationInput,
} from '../contracts/dda-messages';
import { searchAttributes } from '../contracts/search-attributes';
import { signalWithStart, updateWithStart, type Orchestrator } from './temporal';

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
    // A later call (a retry after an outage, a delete, a late confirmation) may start a new run.
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
    // One run at a time per registration: a call while one runs joins it.
    { ...startOptions(input, scope), workflowIdConflictPolicy: 'USE_EXISTING' },
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
    { ...startOptions(input, scope), workflowIdConflictPolicy: 'USE_EXISTING' },
    ddaDeleteUpdate,
  );
}

/**
 * Passes the provider's verified confirmation to the registration's run, starting one when none is
 * running (the provider registered the document though its answer was lost), so a confirmation is never
 * dropped. The caller passes it on only while the row is `pending`.
 */
export async function noteDdaConfirmation(
  o: Orchestrator,
  input: DdaRegistrationInput,
  scope: DdaWorkflowScope,
  providerSubscriptionId: string,
): Promise<void> {
  await signalWithStart<typeof ddaRegistration, [{ providerSubscriptionId: string }]>(o, 'ddaRegistration', {
    ...startOptions(input, scope),
    signal: ddaConfirmedSignal,
    signalArgs: [{ providerSubscriptionId }],
  });
}
