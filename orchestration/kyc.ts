// KYC onboardings' workflows: one per proposal, started when its onboarding is recorded and prompted by
// the provider's verified webhooks. A webhook that finds no run (it overtook the start, or the run was
// lost) starts one with its prompt (Signal-with-Start), so no prompt is dropped; the caller passes it on
// only while the proposal is not final.
import type { kycOnboarding } from '../workflows/kyc-onboarding';
import { kycProviderNoticeSignal, type KycOnboardingInput } from '../contracts/kyc-messages';
import { workflowIds } from '../contracts/workflow-ids';
import { searchAttributes } from '../contracts/search-attributes';
import { signalWithStart, start, type Orchestrator } from './temporal';

export interface KycOnboardingScope {
  orgId: string;
  projectId: string;
  environment: string;
  consumerId?: string;
}

function startOptions(input: KycOnboardingInput, scope: KycOnboardingScope) {
  return {
    workflowId: workflowIds.kycOnboarding(input.proposalId),
    args: [input] as [KycOnboardingInput],
    // A later run may follow one that ended before the proposal did.
    workflowIdReusePolicy: 'ALLOW_DUPLICATE' as const,
    typedSearchAttributes: searchAttributes({ ...scope, kycProposalId: input.proposalId }),
  };
}

export async function startKycOnboarding(
  o: Orchestrator,
  input: KycOnboardingInput,
  scope: KycOnboardingScope,
): Promise<void> {
  // One run at a time per proposal: a repeated start joins the running one.
  await start<typeof kycOnboarding>(o, 'kycOnboarding', {
    ...startOptions(input, scope),
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
}

/** Prompts the proposal's onboarding to look at the provider now. */
export async function noteKycProviderNotice(
  o: Orchestrator,
  input: KycOnboardingInput,
  scope: KycOnboardingScope,
  notice: { eventId: string; status: string | null },
): Promise<void> {
  await signalWithStart<typeof kycOnboarding, [{ eventId: string; status: string | null }]>(
    o,
    'kycOnboarding',
    {
      ...startOptions(input, scope),
      signal: kycProviderNoticeSignal,
      signalArgs: [notice],
    },
  );
}
