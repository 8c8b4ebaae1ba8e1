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

export interface ReplaySpec {
  workflowType: string;
  workflowId(call: HeldCall): string;
  args(call: HeldCall): unknown[];
  /** The execution_result stored on the approval, and whether the replay succeeded. */
  outcome(result: unknown): { ok: boolean; result: Record<string, unknown> };
  searchAttributes(call: HeldCall): { attemptId?: string; amountMinor?: number };
}

export const REPLAYS: Record<string, ReplaySpec> = {
  'wallet.execute': {
    workflowType: 'spendAttempt',
    workflowId: (call) =>
      workflowIds.spendReplay(call.orgId, (call.payload as unknown as SpendInput).attemptId, call.approvalId),
    args: (call) => [{ ...(call.payload as unknown as SpendInput), approvalId: call.approvalId }],
    outcome: (result) => {
      const outcome = result as SpendOutcome;
      return { ok: outcome.status === 'completed', result: outcome.body };
    },
    searchAttributes: (call) => {
      const input = call.payload as unknown as SpendInput;
      return { attemptId: input.attemptId, amountMinor: Number(input.amountMinor) };
    },
  },
  [CONSUMER_SPEND_KIND]: {
    workflowType: 'consumerSpendAttempt',
    workflowId: (call) =>
      workflowIds.consumerSpendReplay(
        call.orgId,
        (call.payload as unknown as SpendRequest).attemptId,
        call.approvalId,
      ),
    args: (call) => {
      const req = call.payload as unknown as SpendRequest;
      return [
        {
          ...req,
          approvedBy: call.approvalId,
          workflowId: workflowIds.consumerSpendReplay(call.orgId, req.attemptId, call.approvalId),
        },
      ];
    },
    outcome: (result) => {
      const answer = result as SpendAnswer;
      return { ok: answer.status === 'completed', result: answer.body };
    },
    searchAttributes: (call) => {
      const req = call.payload as unknown as SpendRequest;
      return { attemptId: req.attemptId, amountMinor: Number(req.amountMinor) };
    },
  },
  // A held tool call (domain/tools/gate.ts TOOL_CALL_KIND): made once in its session after the approval.
  'tool.call': {
    workflowType: 'toolCallReplay',
    workflowId: (call) => workflowIds.toolCallReplay(call.orgId, call.approvalId),
    args: (call) => [
      {
        approvalId: call.approvalId,
        orgId: call.orgId,
        projectId: call.projectId,
        environment: call.environment,
        call: call.payload as unknown as HeldToolCall,
      },
    ],
    outcome: (result) => {
      const replayed = result as ToolCallReplayResult;
      return {
        ok: replayed.ok,
        result: {
          tool_call_id: replayed.tool_call_id,
          error_code: replayed.error_code,
          output: replayed.output,
        },
      };
    },
    searchAttributes: () => ({}),
  },
  // A held paid call of a tenant tool server: charged and made once, at the price it was held at.
  [TOOL_CHARGE_KIND]: {
    workflowType: 'paidToolCall',
    workflowId: (call) =>
      `tool-charge/${call.orgId}/${(call.payload as unknown as ToolChargeInput).attemptId}/${call.approvalId}`,
    args: (call) => [{ ...(call.payload as unknown as ToolChargeInput), approvalId: call.approvalId }],
    outcome: (result) => {
      const outcome = result as ToolChargeOutcome;
      return { ok: outcome.status === 'completed', result: outcome.body };
    },
    searchAttributes: (call) => {
      const input = call.payload as unknown as ToolChargeInput;
      return { attemptId: input.attemptId, amountMinor: Number(input.priceMinor) };
    },
  },
};
