// Reconciliation: one run per project (started on demand from the API), and the sweep that runs every
// project with unreconciled provider debits (the `recon-sweep` Temporal Schedule, hourly).
import { executeChild, proxyActivities, uuid4, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ReconcileInput } from '../activities/reconciliation';
import type { RunRow } from '../domain/reconciliation/run';
import { searchAttributes } from '../contracts/search-attributes';
import { workflowIds } from '../contracts/workflow-ids';

const acts = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 5,
  },
});

export async function walletReconciliation(input: ReconcileInput): Promise<RunRow> {
  return acts.reconcileProject(input);
}

export async function reconciliationSweep(): Promise<{ projects: number }> {
  const projects = await acts.listProjectsToReconcile();
  for (const project of projects) {
    const runId = `rcn_${uuid4().replace(/-/g, '').slice(0, 16)}`;
    await executeChild(walletReconciliation, {
      workflowId: workflowIds.reconciliation(project.projectId, runId),
      args: [{ ...project, runId }],
      typedSearchAttributes: searchAttributes({
        orgId: project.orgId,
        projectId: project.projectId,
        environment: project.environment,
      }),
      taskQueue: workflowInfo().taskQueue,
    });
  }
  return { projects: projects.length };
}
