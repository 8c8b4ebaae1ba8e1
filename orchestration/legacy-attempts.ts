// Attempts claimed under the workflow types from before the one engine (spendAttempt, paidToolCall; their
// rows say so in attempts.workflow_type): joined, never started, through their own messages, until the last
// of them has finished. Their answers are already the stored reply (status and body).
import type { SpendAnswer } from '../contracts/spend';
import { spendOutcomeUpdate } from '../contracts/spend-messages';
import type { ToolChargeAnswer, ToolChargeOutcome, ToolChargeResolution } from '../contracts/tool-charge';
import { toolChargeOutcomeUpdate, toolChargeResolveUpdate } from '../contracts/tool-charge-messages';
import { update, type Orchestrator } from './temporal';

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
