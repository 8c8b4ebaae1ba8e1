// The one money-attempt workflow (workflows/attempt.ts) for every family it runs: one workflow per
// (organization, attempt id), started or joined with Update-with-Start; a finished attempt is never run
// again (its answer is in PostgreSQL). An attempt whose outcome is unknown is resolved here too, by whoever
// knows what happened. Attempts claimed under the workflow types from before the engine are joined through
// orchestration/legacy-attempts.ts.
import {
  ATTEMPT_WORKFLOW,
  type AttemptAnswer,
  type AttemptInput,
  type AttemptResult,
  type EngineFamily,
} from '../contracts/attempt';
import { attemptAnswerUpdate, attemptResolveUpdate } from '../contracts/attempt-messages';
import { searchAttributes } from '../contracts/search-attributes';
import type { ToolChargeResolution } from '../contracts/tool-charge';
import { workflowIds } from '../contracts/workflow-ids';
import type { moneyAttempt } from '../workflows/attempt';
import { update, updateWithStart, type Orchestrator } from './temporal';

/** The attempt's workflow id: each family keeps the id its attempts always had. */
export function attemptWorkflowId(family: EngineFamily, orgId: string, attemptId: string): string {
  // A card authorization is decided in the issuer's transaction; its workflow is its expiry's.
  if (family === 'card_authorization')
    throw new Error(
      'a card authorization never runs the attempt workflow (orchestration/card-authorizations.ts)',
    );
  return family === 'wallet_execute'
    ? workflowIds.spend(orgId, attemptId)
    : workflowIds.toolCharge(orgId, attemptId);
}

const amountOf = (attempt: AttemptInput): string =>
  attempt.family === 'tool_charge' ? attempt.input.priceMinor : attempt.input.amountMinor;

/** Starts or joins the attempt's workflow and waits on its answer (or `uncertain`). */
export function runAttempt(o: Orchestrator, attempt: AttemptInput): Promise<AttemptAnswer> {
  const { input } = attempt;
  return updateWithStart<typeof moneyAttempt, AttemptAnswer>(
    o,
    ATTEMPT_WORKFLOW,
    {
      workflowId: attemptWorkflowId(attempt.family, input.orgId, input.attemptId),
      args: [attempt],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: searchAttributes({
        orgId: input.orgId,
        projectId: input.projectId,
        environment: input.environment,
        attemptId: input.attemptId,
        amountMinor: amountOf(attempt),
      }),
    },
    attemptAnswerUpdate,
  );
}

/**
 * Resolves an attempt whose outcome is unknown and waits for the settled result. Refusals come back as
 * WorkflowUpdateFailedError (cause.type in AttemptResolveFailure); an attempt whose workflow has closed as
 * WorkflowNotFoundError.
 */
export function resolveAttempt(
  o: Orchestrator,
  workflowId: string,
  resolution: ToolChargeResolution,
): Promise<AttemptResult> {
  return update(o, workflowId, attemptResolveUpdate, resolution);
}
