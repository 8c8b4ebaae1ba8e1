// Activities of reconciliation: read the provider's settlement records, compare them with the ledger.
import { Context } from '@temporalio/activity';
import { projectsWithDebits, reconcile, startRun, type RunRow } from '../domain/reconciliation/run';
import type { Environment } from '../domain/tenancy/api-key-format';
import type { ActivityDeps } from './deps';
import { paymentProvider } from './spend';

export interface ReconcileInput {
  orgId: string;
  projectId: string;
  environment: Environment;
  runId: string;
}

export function reconciliationActivities(deps: ActivityDeps) {
  return {
    async reconcileProject(input: ReconcileInput): Promise<RunRow> {
      await startRun(deps.db, input.orgId, input.projectId, input.runId);
      const settlements = await paymentProvider(deps).settlements(Context.current().cancellationSignal);
      const mine = settlements.filter(
        (s) => s.metadata.project_id === input.projectId && s.metadata.org_id === input.orgId,
      );
      return reconcile(
        deps.db,
        { orgId: input.orgId, projectId: input.projectId, environment: input.environment },
        input.runId,
        mine,
      );
    },
    async listProjectsToReconcile(): Promise<
      Array<{ orgId: string; projectId: string; environment: Environment }>
    > {
      return (await projectsWithDebits(deps.db)).map((p) => ({
        orgId: p.org_id,
        projectId: p.project_id,
        environment: p.environment,
      }));
    },
  };
}
