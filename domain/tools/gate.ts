// The policy gate of a tool call that does not move money (a paying tool is gated inside its attempt):
// one transaction runs the rules with the tool's name as the policy's tool and, when a rule holds the
// call, writes its approval with the exact call to replay, so a held call exists exactly when its approval does.
import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool } from '../../runtime/database';
import { createApproval, type ApprovalRow } from '../approvals/approvals';
import type { EventScope } from '../events/record';
import {
  decideUncounted,
  evaluationValues,
  linkEvaluationToApproval,
  runGate,
  type EvaluationValues,
} from '../policies/gate';
import type { CallContext, Decision, Rule } from '../policies/evaluate';
import type { HeldToolCall } from '../../contracts/approval-kinds';
import type { DeniedBy } from '../../contracts/policy-denial';
import { effectiveSettings } from '../tenancy/settings';
import { CARDS_SERVER_ID } from './card-tools';

/** The approval kind of a held tool call; the approval hold replays it (workflows/replays.ts). */
export const TOOL_CALL_KIND = 'tool.call';

/**
 * The refusal of a call a rule would hold whose approval could never run it: the replay of an approved call
 * knows no `cards.*` operation, so such a call is refused up front and no approval is written.
 */
export const APPROVAL_UNSUPPORTED = 'approval_unsupported';

// What its approval stores to replay (contracts/approval-kinds.ts), for the activity that replays it.
export type { HeldToolCall };

export type ToolGate =
  | { kind: 'allow' }
  | { kind: 'deny'; denial: DeniedBy }
  | { kind: 'hold'; denial: DeniedBy; approval: ApprovalRow };

const callContext = (agentId: string, toolName: string): CallContext => ({
  agentId,
  toolName,
  amountMinor: null,
  currency: null,
  now: new Date(),
  approved: false,
});

const denialOf = (decision: Exclude<Decision, { decision: 'allow' }>): DeniedBy => ({
  reason: decision.reason,
  ruleType: decision.rule.type,
  ruleId: decision.rule.id,
  ruleName: decision.rule.name,
});

/**
 * Most calls meet no usage counter and no hold: their gate is decided from the rules already read, without
 * the agent's lock or a transaction, and `record` (the evaluation row's values) rides the statement that
 * finishes the call. Null when the call needs gateToolCall.
 */
export function quickToolGate(
  scope: EventScope,
  agentId: string,
  toolName: string,
  rules: Rule[],
): { gate: ToolGate; record: EvaluationValues } | null {
  const ctx = callContext(agentId, toolName);
  const decision = decideUncounted(rules, ctx);
  if (!decision) return null;
  return {
    gate: decision.decision === 'allow' ? { kind: 'allow' } : { kind: 'deny', denial: denialOf(decision) },
    record: evaluationValues(scope.orgId, scope.projectId, ctx, decision),
  };
}

/** The gate under the agent's lock: counters read exactly, a hold written with its approval. */
export async function gateToolCall(
  db: DatabasePool,
  scope: EventScope,
  agentId: string,
  held: HeldToolCall,
): Promise<ToolGate> {
  const call = callContext(agentId, held.toolName);
  return db.transaction(async (tx) => {
    const gate = await runGate(tx, scope.orgId, scope.projectId, call);
    const { decision } = gate;
    if (decision.decision === 'allow') return { kind: 'allow' };
    const denial = denialOf(decision);
    if (decision.decision === 'deny') return { kind: 'deny', denial };
    if (held.serverId === CARDS_SERVER_ID)
      return { kind: 'deny', denial: { ...denial, reason: APPROVAL_UNSUPPORTED } };
    const stored = await tx.oneFirst(sql.type(z.object({ settings: z.record(z.unknown()) }))`
      SELECT settings FROM projects WHERE org_id = ${scope.orgId} AND id = ${scope.projectId}`);
    const approval = await createApproval(tx, scope, {
      agentId,
      sessionId: held.sessionId,
      ruleId: decision.rule.id,
      ruleName: decision.rule.name,
      toolName: held.toolName,
      toolInput: held.arguments,
      kind: TOOL_CALL_KIND,
      payload: held,
      originRef: held.heldCallId,
      ttlSeconds: Number(effectiveSettings(stored).approval_ttl_seconds),
    });
    await linkEvaluationToApproval(tx, scope.orgId, gate.evaluationId, approval.id);
    return { kind: 'hold', denial, approval };
  });
}
