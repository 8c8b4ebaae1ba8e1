// A USDC wallet's deposit watcher: started when its deposit address is first read, and found again by
// every later read (one watcher per wallet, whatever the number of readers).
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { depositWatch } from '../workflows/deposit-watch';
import type { DepositWatchInput } from '../contracts/topup-messages';
import { workflowIds } from '../contracts/workflow-ids';
import { searchAttributes } from '../contracts/search-attributes';
import { start, type Orchestrator } from './temporal';

export async function ensureDepositWatch(o: Orchestrator, input: DepositWatchInput): Promise<void> {
  try {
    await start<typeof depositWatch>(o, 'depositWatch', {
      workflowId: workflowIds.depositWatch(input.walletId),
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      // A watcher stopped by hand starts again on the next read; one of a closed wallet ends at once.
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      typedSearchAttributes: searchAttributes({
        orgId: input.orgId,
        projectId: input.projectId,
        environment: input.environment,
        rail: 'usdc',
      }),
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}
