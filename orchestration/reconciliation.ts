// A project's wallet reconciliation run, started now and waited on for the HTTP caller; the hourly sweep
// over every project is a schedule (money-schedules.ts).
import { searchAttributes } from '../contracts/search-attributes';
import { workflowIds } from '../contracts/workflow-ids';
import type { walletReconciliation } from '../workflows/reconciliation';
import { runWorkflowBounded } from './bounded';
import type { Orchestrator } from './temporal';

export function runReconciliation(o: Orchestrator, input: Parameters<typeof walletReconciliation>[0]) {
  return runWorkflowBounded<typeof walletReconciliation>(
    o,
    'walletReconciliation',
    {
      workflowId: workflowIds.reconciliation(input.projectId, input.runId),
      timeoutMs: 30_000,
      args: [input],
      typedSearchAttributes: searchAttributes({
        orgId: input.orgId,
        projectId: input.projectId,
        environment: input.environment,
      }),
    },
    'the reconciliation run',
  );
}
