// The one money-attempt workflow (workflows/attempt.ts) for every family it runs: one workflow per
// (organization, attempt id), started or joined with Update-with-Start; a finished attempt is never run
// again (its answer is in PostgreSQL). An attempt whose outcome is unknown is resolved here too, by whoever
// knows what happened; its audit so far is read here for a stream, and the other side's settlement notice
// is passed on. Attempts claimed under the workflow types from before the engine are joined through
// orchestration/legacy-attempts.ts.
import {
  ATTEMPT_WORKFLOW,
  type AttemptAnswer,
  type AttemptInput,
  type AttemptProgress,
  type AttemptResult,
  type EngineFamily,
} from '../contracts/attempt';
import {
  attemptAnswerUpdate,
  attemptProgressQuery,
  attemptResolveUpdate,
  attemptSettlementSignal,
} from '../contracts/attempt-messages';
import { searchAttributes } from '../contracts/search-attributes';
import type { ToolChargeResolution } from '../contracts/tool-charge';
import { workflowIds } from '../contracts/workflow-ids';
import type { moneyAttempt } from '../workflows/attempt';
import { handle, signal, update, updateWithStart, type Orchestrator } from './temporal';

/** The attempt's workflow id: each family keeps the id its attempts always had. */
export function attemptWorkflowId(family: EngineFamily, orgId: string, attemptId: string): string {
  if (family === 'consumer_spend') return workflowIds.consumerSpend(orgId, attemptId);
  // A card authorization is decided in the issuer's transaction; its workflow is its expiry's.
  if (family === 'card_authorization')
    throw new Error(
      'a card authorization never runs the attempt workflow (orchestration/card-authorizations.ts)',
    );
  return family === 'wallet_execute'
    ? workflowIds.spend(orgId, attemptId)
    : workflowIds.toolCharge(orgId, attemptId);
}

/** What the attempt moves and under which mandate and rail, for operators' searches. */
function attemptAttributes(attempt: AttemptInput) {
  if (attempt.family === 'tool_charge') return { amountMinor: attempt.input.priceMinor };
  if (attempt.family === 'wallet_execute' || attempt.family === 'card_authorization')
    return { amountMinor: attempt.input.amountMinor };
  const { mandateId, rail, amountMinor } = attempt.input;
  return { mandateId, rail, amountMinor };
}

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
      // A consumer spend whose run failed (broke after its send) may run again: its steps find what the
      // failed run held and sent (the authorization resumes it), and an answered one only repeats its answer.
      workflowIdReusePolicy:
        attempt.family === 'consumer_spend' ? 'ALLOW_DUPLICATE_FAILED_ONLY' : 'REJECT_DUPLICATE',
      typedSearchAttributes: searchAttributes({
        orgId: input.orgId,
        projectId: input.projectId,
        environment: input.environment,
        attemptId: input.attemptId,
        ...attemptAttributes(attempt),
      }),
    },
    attemptAnswerUpdate,
  );
}

/** Joins a running attempt of the engine (an approved one runs under its approval's replay workflow). */
export function joinAttempt(o: Orchestrator, workflowId: string): Promise<AttemptAnswer> {
  return update(o, workflowId, attemptAnswerUpdate);
}

/** The attempt's audit so far, for a caller streaming it. */
export function attemptProgress(o: Orchestrator, workflowId: string): Promise<AttemptProgress> {
  return handle<typeof moneyAttempt>(o, workflowId).query(attemptProgressQuery);
}

/** The other side noticed the attempt's payment settled: the attempt looks it up itself (the notice is a hint). */
export function noteAttemptSettlement(o: Orchestrator, workflowId: string): Promise<void> {
  return signal(o, workflowId, attemptSettlementSignal);
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
