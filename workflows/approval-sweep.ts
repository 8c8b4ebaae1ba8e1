// The deployment-wide sweep that expires overdue approvals whose hold workflow did not; runs from the
// `approvals-sweep` Temporal Schedule every minute, and on demand from the operator route.
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { sweepApprovalsActivity } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 5,
  },
});

export async function approvalSweep(): Promise<{ expired: number; swept_at: string }> {
  return sweepApprovalsActivity();
}
