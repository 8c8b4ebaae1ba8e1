// KYC onboardings' workflows: one started per proposal when its onboarding is recorded, and prompted by
// the provider's verified webhooks. A webhook for a finished onboarding changes nothing.
import { WorkflowNotFoundError } from '@temporalio/client';
import type { kycOnboarding } from '../workflows/kyc-onboarding';
import { kycProviderNoticeSignal, type KycOnboardingInput } from '../contracts/kyc-messages';
import { workflowIds } from '../contracts/workflow-ids';
import { searchAttributes } from '../contracts/search-attributes';
import { signal, start, type Orchestrator } from './temporal';

export interface KycOnboardingScope {
  orgId: string;
  projectId: string;
  environment: string;
  consumerId: string;
}

export async function startKycOnboarding(
  o: Orchestrator,
  input: KycOnboardingInput,
  scope: KycOnboardingScope,
): Promise<void> {
  await start<typeof kycOnboarding>(o, 'kycOnboarding', {
    workflowId: workflowIds.kycOnboarding(input.proposalId),
    args: [input],
    // One onboarding per proposal, ever: a proposal's id is never reused.
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    typedSearchAttributes: searchAttributes({ ...scope, kycProposalId: input.proposalId }),
  });
}

/** Prompts an onboarding to look at the provider; false when its workflow has already finished. */
export async function noteKycProviderNotice(
  o: Orchestrator,
  proposalId: string,
  notice: { eventId: string; status: string | null },
): Promise<boolean> {
  try {
    await signal(o, workflowIds.kycOnboarding(proposalId), kycProviderNoticeSignal, notice);
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}
