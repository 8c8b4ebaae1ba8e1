// A paid tool call's workflow: one per (organization, attempt id), started or joined with Update-with-Start
// exactly as wallet execute's spend attempt is; a finished call is never run again (its answer is in PostgreSQL).
import type { ToolChargeAnswer, ToolChargeInput } from '../domain/tool-servers/charge-types';
import type { paidToolCall } from '../workflows/paid-tool-call';
import { searchAttributes } from '../workflows/search-attributes';
import { toolChargeOutcomeUpdate } from '../workflows/tool-charge-messages';
import { updateWithStart, type Orchestrator } from './temporal';

export const toolChargeWorkflowId = (orgId: string, attemptId: string): string =>
  `tool-charge/${orgId}/${attemptId}`;

export function runToolCharge(o: Orchestrator, input: ToolChargeInput): Promise<ToolChargeAnswer> {
  return updateWithStart<typeof paidToolCall, ToolChargeAnswer>(
    o,
    'paidToolCall',
    {
      workflowId: toolChargeWorkflowId(input.orgId, input.attemptId),
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: searchAttributes({
        orgId: input.orgId,
        projectId: input.projectId,
        environment: input.environment,
        attemptId: input.attemptId,
        amountMinor: input.priceMinor,
      }),
    },
    toolChargeOutcomeUpdate,
  );
}
