// Activities of reconciliation: read the provider's settlement records, compare them with the ledger.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { projectsWithDebits, reconcile, startRun, type RunRow } from '../domain/reconciliation/run';
import type { Environment } from '../domain/tenancy/api-key-format';
import { EndpointNotConfigured } from '../domain/providers/endpoints';
import type { ActivityDeps } from './deps';
import { paymentProvider } from './attempts/families/wallet-execute';

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
      let settlements;
      try {
        // The project's own environment's provider: a test project is compared with the sandbox's records.
        settlements = await paymentProvider(deps, input.environment).settlements(
          Context.current().cancellationSignal,
        );
      } catch (error) {
        if (error instanceof EndpointNotConfigured)
          throw ApplicationFailure.nonRetryable(error.message, 'provider_not_configured');
        throw error;
      }
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
