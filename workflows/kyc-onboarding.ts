// One KYC onboarding (`kyc/<proposal id>`): follows the provider's proposal until it is approved or
// rejected. A verified provider webhook (a signal) makes it look at once; without one it looks on its
// own after a quiet wait that doubles up to a ceiling, so a lost webhook or a provider outage only delays
// it. On approval it opens the account at the bank, gives the consumer one `pix-partner` funding source
// and its verified document, then registers the account's Pix key, retrying a failed registration on its
// own doubling schedule. PostgreSQL holds the state each step writes; every step skips what is done, so a
// worker lost mid-way resumes without a second account, source or key.
import { condition, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  kycOnboardingStateQuery,
  kycProviderNoticeSignal,
  type KycOnboardingInput,
  type KycOnboardingResult,
  type KycOnboardingStatus,
} from '../contracts/kyc-messages';

// Each step is retried until it lands: the provider and the database are asked again, never skipped.
const steps = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export async function kycOnboarding(input: KycOnboardingInput): Promise<KycOnboardingResult> {
  let status: KycOnboardingStatus = 'pending';
  let notices = 0;
  let heard = 0;
  let checks = 0;
  let pixKeyRegistered = false;
  let pixKeyAttempts = 0;
  setHandler(kycProviderNoticeSignal, () => {
    notices++;
  });
  setHandler(kycOnboardingStateQuery, () => ({ status, checks, notices, pixKeyRegistered, pixKeyAttempts }));

  let quiet = input.pollInitialSeconds;
  for (;;) {
    const step = await steps.checkKycProposal(input.proposalId);
    checks++;
    status = step.status;
    if (status === 'rejected') return { status, reason: step.reason };
    if (status === 'approved' || step.approvedUpstream) break;
    const prompted = await condition(() => notices > heard, quiet * 1_000);
    if (prompted) {
      heard = notices;
      quiet = input.pollInitialSeconds;
    } else {
      quiet = Math.min(quiet * 2, input.pollMaxSeconds);
    }
  }

  status = await steps.openKycAccount(input.proposalId);
  await steps.completeKycApproval(input.proposalId);
  let retry = input.pixRetrySeconds;
  while (!(await steps.registerKycPixKey(input.proposalId))) {
    pixKeyAttempts++;
    await sleep(retry * 1_000);
    retry = Math.min(retry * 2, Math.max(input.pollMaxSeconds, input.pixRetrySeconds));
  }
  pixKeyRegistered = true;
  return { status: 'approved', reason: null };
}
