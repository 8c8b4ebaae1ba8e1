// What an approved call replays, by approval kind. An approval stores a kind and a payload; the approval-hold
// workflow looks the kind up here and runs the replay as a child workflow with a deterministic id, so it runs
// exactly once. Another area holds its calls by adding an entry (e.g. 'consumer.spend') with its own workflow.
import { CONSUMER_SPEND_KIND, type SpendAnswer, type SpendRequest } from '../contracts/consumer-spend';
import type { SpendInput, SpendOutcome } from '../contracts/spend';
import type { HeldToolCall } from '../domain/tools/gate';
import type { ToolCallReplayResult } from '../activities/tool-calls';
import { TOOL_CHARGE_KIND, type ToolChargeInput, type ToolChargeOutcome } from '../contracts/tool-charge';
import { workflowIds } from '../contracts/workflow-ids';

export interface HeldCall {
  approvalId: string;
  orgId: string;
  projectId: string;
  environment: 'live' | 'test';
  kind: string;
  payload: Record<string, unknown>;
}

type AttemptAttributes = { attemptId?: string; amountMinor?: number };

export interface ReplaySpec {
  workflowType: string;
  workflowId(call: HeldCall): string;
  args(call: HeldCall): unknown[];
  /** The execution_result stored on the approval, and whether the replay succeeded. */
  outcome(result: unknown): { ok: boolean; result: Record<string, unknown> };
  searchAttributes(call: HeldCall): AttemptAttributes;
}

/** A replay written against its kind's own payload and result types. */
interface TypedReplay<P, R> {
  workflowType: string;
  workflowId(call: HeldCall, payload: P): string;
  args(call: HeldCall, payload: P): unknown[];
  outcome(result: R): { ok: boolean; result: Record<string, unknown> };
  searchAttributes(call: HeldCall, payload: P): AttemptAttributes;
}

/**
 * The one place a stored payload takes its kind's type: the approval was created with exactly that shape
 * by the area that held the call, and the replay workflow's result is the one its type returns.
 */
function replay<P, R>(spec: TypedReplay<P, R>): ReplaySpec {
  const payloadOf = (call: HeldCall): P => call.payload as unknown as P;
  return {
    workflowType: spec.workflowType,
    workflowId: (call) => spec.workflowId(call, payloadOf(call)),
    args: (call) => spec.args(call, payloadOf(call)),
    outcome: (result) => spec.outcome(result as R),
    searchAttributes: (call) => spec.searchAttributes(call, payloadOf(call)),
  };
}

export const REPLAYS: Record<string, ReplaySpec> = {
  'wallet.execute': replay<SpendInput, SpendOutcome>({
    workflowType: 'spendAttempt',
    workflowId: (call, input) => workflowIds.spendReplay(call.orgId, input.attemptId, call.approvalId),
    args: (call, input) => [{ ...input, approvalId: call.approvalId }],
    outcome: (outcome) => ({ ok: outcome.status === 'completed', result: outcome.body }),
    searchAttributes: (_call, input) => ({
      attemptId: input.attemptId,
      amountMinor: Number(input.amountMinor),
    }),
  }),
  [CONSUMER_SPEND_KIND]: replay<SpendRequest, SpendAnswer>({
    workflowType: 'consumerSpendAttempt',
    workflowId: (call, req) => workflowIds.consumerSpendReplay(call.orgId, req.attemptId, call.approvalId),
    args: (call, req) => [
      {
        ...req,
        approvedBy: call.approvalId,
        workflowId: workflowIds.consumerSpendReplay(call.orgId, req.attemptId, call.approvalId),
      },
    ],
    outcome: (answer) => ({ ok: answer.status === 'completed', result: answer.body }),
    searchAttributes: (_call, req) => ({ attemptId: req.attemptId, amountMinor: Number(req.amountMinor) }),
  }),
  // A held tool call (domain/tools/gate.ts TOOL_CALL_KIND): made once in its session after the approval.
  'tool.call': replay<HeldToolCall, ToolCallReplayResult>({
    workflowType: 'toolCallReplay',
    workflowId: (call) => workflowIds.toolCallReplay(call.orgId, call.approvalId),
    args: (call, held) => [
      {
        approvalId: call.approvalId,
        orgId: call.orgId,
        projectId: call.projectId,
        environment: call.environment,
        call: held,
      },
    ],
    outcome: (replayed) => ({
      ok: replayed.ok,
      result: {
        tool_call_id: replayed.tool_call_id,
        error_code: replayed.error_code,
        output: replayed.output,
      },
    }),
    searchAttributes: () => ({}),
  }),
  // A held paid call of a tenant tool server: charged and made once, at the price it was held at.
  [TOOL_CHARGE_KIND]: replay<ToolChargeInput, ToolChargeOutcome>({
    workflowType: 'paidToolCall',
    workflowId: (call, input) => `tool-charge/${call.orgId}/${input.attemptId}/${call.approvalId}`,
    args: (call, input) => [{ ...input, approvalId: call.approvalId }],
    outcome: (outcome) => ({ ok: outcome.status === 'completed', result: outcome.body }),
    searchAttributes: (_call, input) => ({
      attemptId: input.attemptId,
      amountMinor: Number(input.priceMinor),
    }),
  }),
};
