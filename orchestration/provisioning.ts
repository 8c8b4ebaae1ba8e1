// Provisioning runs' workflows: started once the run's row is written, then given verification codes and
// cancels as updates. A run whose workflow has closed, or that is not waiting for a code, is answered
// from its row by the caller.
import type { provisioningRun } from '../workflows/provisioning-run';
import {
  NOT_AWAITING_VERIFICATION,
  provisioningCancelUpdate,
  provisioningCodeUpdate,
  type CodeAnswer,
  type ProvisioningOutcome,
  type ProvisioningRunInput,
} from '../contracts/provisioning-messages';
import { searchAttributes } from '../contracts/search-attributes';
import { workflowIds } from '../contracts/workflow-ids';
import { answerIsStored, updateFailure } from './errors';
import { start, update, type Orchestrator } from './temporal';

export async function startProvisioningRun(o: Orchestrator, input: ProvisioningRunInput): Promise<void> {
  await start<typeof provisioningRun>(o, 'provisioningRun', {
    workflowId: workflowIds.provisioningRun(input.runId),
    args: [input],
    // A run is one workflow, ever.
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    typedSearchAttributes: searchAttributes({
      orgId: input.orgId,
      projectId: input.projectId,
      environment: 'test',
    }),
  });
}

/** Why the workflow gave no answer: it is not waiting for a code, or it has closed. */
export type NoAnswer = { outcome: 'not_awaiting' } | { outcome: 'closed' };

function noAnswer(error: unknown): NoAnswer {
  if (updateFailure(error)?.type === NOT_AWAITING_VERIFICATION) return { outcome: 'not_awaiting' };
  if (answerIsStored(error)) return { outcome: 'closed' };
  throw error;
}

/** `codeSealed`: the code sealed under the run (codeSealContext), never the code itself. */
export async function sendProvisioningCode(
  o: Orchestrator,
  runId: string,
  codeSealed: string,
): Promise<CodeAnswer | NoAnswer> {
  try {
    return await update(o, workflowIds.provisioningRun(runId), provisioningCodeUpdate, codeSealed);
  } catch (error) {
    return noAnswer(error);
  }
}

export async function cancelProvisioningRun(
  o: Orchestrator,
  runId: string,
): Promise<{ outcome: ProvisioningOutcome } | NoAnswer> {
  try {
    return { outcome: await update(o, workflowIds.provisioningRun(runId), provisioningCancelUpdate) };
  } catch (error) {
    return noAnswer(error);
  }
}
