// Attempts claimed under the workflow types from before the one engine (spendAttempt, paidToolCall,
// consumerSpendAttempt; their rows say so in attempts.workflow_type): joined, never started, through their
// own messages, until the last of them has finished. Their answers are already the stored reply (status and
// body).
import type { SpendAnswer as ConsumerSpendAnswer } from '../contracts/consumer-spend';
import {
  consumerSpendAnswerUpdate,
  consumerSpendProgressQuery,
  consumerSpendRetryUpdate,
  consumerSpendSettlementSignal,
} from '../contracts/consumer-spend-messages';
import type { SpendAnswer } from '../contracts/spend';
import { spendOutcomeUpdate } from '../contracts/spend-messages';
import type { ToolChargeAnswer, ToolChargeOutcome, ToolChargeResolution } from '../contracts/tool-charge';
import { toolChargeOutcomeUpdate, toolChargeResolveUpdate } from '../contracts/tool-charge-messages';
import type { consumerSpendAttempt } from '../workflows/legacy/consumer-spend-attempt';
import { handle, signal, update, type Orchestrator } from './temporal';

/** A running wallet execute of the old type: its answer, or `provider_uncertain` (asked again first). */
export function joinLegacyWalletSpend(o: Orchestrator, workflowId: string): Promise<SpendAnswer> {
  return update(o, workflowId, spendOutcomeUpdate);
}

/** A running paid tool call of the old type: its answer, or `upstream_uncertain`. */
export function joinLegacyToolCharge(o: Orchestrator, workflowId: string): Promise<ToolChargeAnswer> {
  return update(o, workflowId, toolChargeOutcomeUpdate);
}

/** Resolves a held paid tool call of the old type (refusals typed as AttemptResolveFailure's). */
export function resolveLegacyToolCharge(
  o: Orchestrator,
  workflowId: string,
  resolution: ToolChargeResolution,
): Promise<ToolChargeOutcome> {
  return update(o, workflowId, toolChargeResolveUpdate, resolution);
}

/** A running consumer spend of the old type (an approved one runs under its approval's replay workflow). */
export function joinLegacyConsumerSpend(o: Orchestrator, workflowId: string): Promise<ConsumerSpendAnswer> {
  return update(o, workflowId, consumerSpendAnswerUpdate);
}

/** Presents an uncertain consumer spend of the old type again: it asks the provider, resends only what never arrived. */
export function presentLegacyConsumerSpend(
  o: Orchestrator,
  workflowId: string,
): Promise<ConsumerSpendAnswer> {
  return update(o, workflowId, consumerSpendRetryUpdate);
}

/** The audit so far of a consumer spend of the old type, for the execute stream. */
export function legacyConsumerSpendProgress(o: Orchestrator, workflowId: string) {
  return handle<typeof consumerSpendAttempt>(o, workflowId).query(consumerSpendProgressQuery);
}

/** A settlement notice for a consumer spend of the old type (the notice is a hint: it asks the PSP itself). */
export function noteLegacyConsumerSpendSettlement(o: Orchestrator, workflowId: string): Promise<void> {
  return signal(o, workflowId, consumerSpendSettlementSignal);
}
