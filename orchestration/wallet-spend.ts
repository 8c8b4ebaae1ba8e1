// Wallet execute's workflow: one spend attempt per (organization, attempt id), started or joined with
// Update-with-Start; a finished attempt is never run again (its answer is in PostgreSQL).
import type { SpendAnswer, SpendInput } from '../contracts/spend';
import { workflowIds } from '../contracts/workflow-ids';
import { searchAttributes } from '../contracts/search-attributes';
import { spendOutcomeUpdate } from '../contracts/spend-messages';
import type { spendAttempt } from '../workflows/spend-attempt';
import { updateWithStart, type Orchestrator } from './temporal';

export const walletSpendWorkflowId = (orgId: string, attemptId: string): string =>
  workflowIds.spend(orgId, attemptId);

/** Starts or joins the attempt's workflow and waits on its answer (or `provider_uncertain`). */
export function runWalletSpend(o: Orchestrator, input: SpendInput): Promise<SpendAnswer> {
  return updateWithStart<typeof spendAttempt, SpendAnswer>(
    o,
    'spendAttempt',
    {
      workflowId: walletSpendWorkflowId(input.orgId, input.attemptId),
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: searchAttributes({
        orgId: input.orgId,
        projectId: input.projectId,
        environment: input.environment,
        attemptId: input.attemptId,
        amountMinor: input.amountMinor,
      }),
    },
    spendOutcomeUpdate,
  );
}
