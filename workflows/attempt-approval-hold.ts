// How an attempt a rule holds for a person starts its approval hold: one child workflow per approval,
// abandoned when the attempt closes (it waits for the decision or its expiry, then replays the attempt
// once through workflows/replays.ts), carrying the attempt's search attributes. Shared by every
// attempt family's workflow.
import { startChild } from '@temporalio/workflow';
import type { ApprovalHoldInput } from './approval-hold';
import { workflowIds } from '../contracts/workflow-ids';
import { searchAttributes } from '../contracts/search-attributes';

export async function startAttemptApprovalHold(
  hold: ApprovalHoldInput & { attemptId: string },
): Promise<void> {
  const { attemptId, ...input } = hold;
  await startChild('approvalHold', {
    workflowId: workflowIds.approval(input.approvalId),
    parentClosePolicy: 'ABANDON',
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    args: [input],
    typedSearchAttributes: searchAttributes({
      orgId: input.orgId,
      projectId: input.projectId,
      environment: input.environment,
      attemptId,
    }),
  });
}
