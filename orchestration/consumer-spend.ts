// The consumer spend's workflow: started (or joined) for a new attempt, joined under its approval's replay
// workflow once approved, presented again when its dispatch was uncertain, and nudged by the PSP's
// settlement notice. A running attempt is joined; a finished one is answered from PostgreSQL.
import type { WorkflowHandle } from '@temporalio/client';
import type { SpendAnswer, SpendRequest } from '../contracts/consumer-spend';
import type { consumerSpendAttempt } from '../workflows/consumer-spend-attempt';
import {
  consumerSpendAnswerUpdate,
  consumerSpendProgressQuery,
  consumerSpendRetryUpdate,
  consumerSpendSettlementSignal,
} from '../contracts/consumer-spend-messages';
import { searchAttributes } from '../contracts/search-attributes';
import { handle, signal, update, updateWithStart, type Orchestrator } from './temporal';

type ConsumerSpendHandle = WorkflowHandle<typeof consumerSpendAttempt>;

/**
 * Start or join and wait on the answer, in one Update-with-Start call. A racing duplicate starts too: its
 * claim can lose to one whose workflow is not started yet, and an update alone would find no workflow (the
 * id conflict policy joins whichever start came first; both carry the same payment).
 */
export function startConsumerSpend(o: Orchestrator, req: SpendRequest): Promise<SpendAnswer> {
  return updateWithStart<typeof consumerSpendAttempt, SpendAnswer>(
    o,
    'consumerSpendAttempt',
    {
      workflowId: req.workflowId,
      args: [req],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
      typedSearchAttributes: searchAttributes({
        orgId: req.orgId,
        projectId: req.projectId,
        environment: req.environment,
        mandateId: req.mandateId,
        attemptId: req.attemptId,
        rail: req.rail,
        amountMinor: req.amountMinor,
      }),
    },
    consumerSpendAnswerUpdate,
  );
}

/** Joins a running attempt (an approved one runs under its approval's replay workflow) and waits on its answer. */
export function joinConsumerSpend(o: Orchestrator, workflowId: string): Promise<SpendAnswer> {
  return update(o, workflowId, consumerSpendAnswerUpdate);
}

/** Presents an uncertain attempt again: the workflow asks the provider, and resends only what never arrived. */
export function presentConsumerSpendAgain(o: Orchestrator, workflowId: string): Promise<SpendAnswer> {
  return update(o, workflowId, consumerSpendRetryUpdate);
}

/** The attempt's audit so far, for the execute stream. */
export function consumerSpendProgress(o: Orchestrator, workflowId: string) {
  return handle<typeof consumerSpendAttempt>(o, workflowId).query(consumerSpendProgressQuery);
}

/** A settlement notice arrived for the attempt; the workflow asks the PSP itself (the notice is a hint). */
export function noteConsumerSpendSettlement(o: Orchestrator, workflowId: string): Promise<void> {
  return signal(o, workflowId, consumerSpendSettlementSignal);
}
