// Pix top-ups' workflows: started (with the caller waiting on the charge's BR Code) when the top-up row
// was opened, and nudged by the PSP's notices. A notice for a finished top-up changes nothing.
import { WorkflowNotFoundError } from '@temporalio/client';
import type { walletTopup } from '../workflows/wallet-topup';
import {
  topupChargeUpdate,
  topupNoticeSignal,
  type TopupChargeView,
  type WalletTopupInput,
} from '../contracts/topup-messages';
import { workflowIds } from '../contracts/workflow-ids';
import { searchAttributes } from '../contracts/search-attributes';
import { signal, updateWithStart, type Orchestrator } from './temporal';

export function startWalletTopup(
  o: Orchestrator,
  input: WalletTopupInput & { amountMinor: bigint },
): Promise<TopupChargeView> {
  const { amountMinor, ...args } = input;
  return updateWithStart<typeof walletTopup, TopupChargeView>(
    o,
    'walletTopup',
    {
      workflowId: workflowIds.walletTopup(input.orgId, input.topupId),
      args: [args],
      // A retried create joins the running workflow; a finished top-up never runs again.
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: searchAttributes({
        orgId: input.orgId,
        projectId: input.projectId,
        environment: input.environment,
        attemptId: input.topupId,
        rail: 'pix',
        amountMinor,
      }),
    },
    topupChargeUpdate,
  );
}

/** Tells a top-up's workflow the PSP has news; false when the workflow has already finished. */
export async function noteTopupNotice(o: Orchestrator, orgId: string, topupId: string): Promise<boolean> {
  try {
    await signal(o, workflowIds.walletTopup(orgId, topupId), topupNoticeSignal);
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}
