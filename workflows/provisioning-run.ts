// One provisioning run (`provisioning/<runId>`): sign the project up at the provider's sandbox, wait for
// the verification code the provider sent for as long as the code holds (a durable timer), then have the
// provider issue an API key, sealed as the project's connection. Codes and cancels arrive as updates.
// PostgreSQL holds the run as the API shows it and each step's history line; the credential never
// enters the workflow.
import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  NOT_AWAITING_VERIFICATION,
  SIGNUP_PROTOCOL,
  SIGNUP_REFUSED,
  provisioningCancelUpdate,
  provisioningCodeUpdate,
  type CodeAnswer,
  type ProvisioningOutcome,
  type ProvisioningRunInput,
  type SignupStep,
} from '../contracts/provisioning-messages';

// Provider calls: a few tries, then the run fails and counts against the provider.
const provider = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumAttempts: 3,
    nonRetryableErrorTypes: [SIGNUP_REFUSED, SIGNUP_PROTOCOL],
  },
});
// Recording what already happened must land: retried until the database answers.
const record = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** The failure code a provider step's error stands for. */
function failureOf(error: unknown): { code: string; message: string } {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure && cause.type === SIGNUP_REFUSED)
    return { code: 'signup_refused', message: cause.message };
  if (cause instanceof ApplicationFailure && cause.type === SIGNUP_PROTOCOL)
    return { code: 'provider_protocol', message: cause.message };
  return { code: 'provider_unavailable', message: 'The provider did not answer after several tries' };
}

export async function provisioningRun(input: ProvisioningRunInput): Promise<ProvisioningOutcome> {
  let phase: 'signing_up' | 'awaiting_code' | 'issuing' | 'finished' = 'signing_up';
  let verifying = false;
  let verified = false;
  let codeLapsed = false;
  let cancelRequested = false;
  let outcome: ProvisioningOutcome | null = null;

  setHandler(
    provisioningCodeUpdate,
    async (codeSealed: string): Promise<CodeAnswer> => {
      // The sign-up step marks the run awaiting its code before this workflow hears the step ended, so a
      // code sent at once can arrive while the phase still reads signing up: it waits for the step's end.
      // One code at a time reaches the provider; a code behind an accepted one finds the run moved on.
      await condition(() => phase !== 'signing_up' && !verifying);
      if (phase !== 'awaiting_code' || verified || codeLapsed)
        throw ApplicationFailure.nonRetryable('The run is not waiting for a code', NOT_AWAITING_VERIFICATION);
      verifying = true;
      try {
        const verdict = await provider.verifySandboxSignup({ runId: input.runId, codeSealed });
        if (verdict === 'accepted') verified = true;
        if (verdict === 'expired') codeLapsed = true;
        return { outcome: verdict };
      } catch {
        return { outcome: 'unavailable' };
      } finally {
        verifying = false;
      }
    },
    {
      validator: (_codeSealed: string) => {
        if (phase === 'issuing' || phase === 'finished')
          throw ApplicationFailure.nonRetryable(
            'The run is not waiting for a code',
            NOT_AWAITING_VERIFICATION,
          );
      },
    },
  );
  setHandler(provisioningCancelUpdate, async () => {
    cancelRequested = true;
    await condition(() => outcome !== null);
    return outcome!;
  });

  const end = async (
    ending: ProvisioningOutcome,
    failure?: { code: string; message: string },
  ): Promise<ProvisioningOutcome> => {
    phase = 'finished';
    if (ending !== 'succeeded')
      await record.endProvisioningRun({
        runId: input.runId,
        end: failure ? { status: 'failed', ...failure } : { status: ending as 'canceled' | 'expired' },
      });
    outcome = ending;
    await condition(allHandlersFinished);
    return ending;
  };

  let signup: SignupStep;
  try {
    signup = await provider.startSandboxSignup(input.runId);
  } catch (error) {
    return end('failed', failureOf(error));
  }
  if (cancelRequested) return end('canceled');

  if (signup.verification === 'required') {
    phase = 'awaiting_code';
    await condition(() => verified || codeLapsed || cancelRequested, signup.expiresInSeconds * 1000);
    // A code the provider is checking as the pause ends still counts.
    await condition(() => !verifying);
    if (cancelRequested) return end('canceled');
    if (!verified) return end('expired');
  }

  phase = 'issuing';
  try {
    await provider.issueSandboxCredential(input.runId);
  } catch (error) {
    return end('failed', failureOf(error));
  }
  return end('succeeded');
}
