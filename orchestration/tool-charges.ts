// A paid tool call's workflow: one per (organization, attempt id), started or joined with Update-with-Start
// exactly as wallet execute's spend attempt is; a finished call is never run again (its answer is in PostgreSQL).
// A call whose upstream answer never came is resolved here too, by whoever knows what the upstream did.
import type {
  ToolChargeAnswer,
  ToolChargeInput,
  ToolChargeOutcome,
  ToolChargeResolution,
} from '../contracts/tool-charge';
import type { paidToolCall } from '../workflows/paid-tool-call';
import { searchAttributes } from '../contracts/search-attributes';
import { toolChargeOutcomeUpdate, toolChargeResolveUpdate } from '../contracts/tool-charge-messages';
import { update, updateWithStart, type Orchestrator } from './temporal';

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

/**
 * Resolves the held call of the caller's organization `orgId` and waits for the settled outcome. Refusals
 * come back as WorkflowUpdateFailedError (cause.type in ToolChargeResolveFailure); a call whose workflow has
 * closed as WorkflowNotFoundError.
 */
export function resolveToolCharge(
  o: Orchestrator,
  orgId: string,
  attemptId: string,
  resolution: ToolChargeResolution,
): Promise<ToolChargeOutcome> {
  return update(o, toolChargeWorkflowId(orgId, attemptId), toolChargeResolveUpdate, resolution);
}
