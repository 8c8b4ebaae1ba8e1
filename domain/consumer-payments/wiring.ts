// Binds the consumer-payment seams to the areas that own them: the mandates area's payment seam, the
// ledger (funds.ts), the policy gate, and approval holds (replayed by the approval-hold workflow through
// the 'consumer.spend' entry of workflows/replays.ts).
import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabaseTransactionConnection } from '../../runtime/database';
import { createApproval } from '../approvals/approvals';
import type { KeyRing } from '../crypto/secret-box';
import { mandatePaymentSeam } from '../mandates/payment-seam';
import { linkEvaluationToApproval, runGate } from '../policies/gate';
import { effectiveSettings } from '../tenancy/settings';
import { ledgerFundsSeam } from './funds';
import type { ApprovalSeam, ConsumerPaymentSeams, PolicySeam } from './seams';
import { CONSUMER_SPEND_KIND } from '../../contracts/consumer-spend';

/** The tool name policy rules match a consumer spend by, per rail. */
export const consumerSpendTool = (rail: string): string => `consumer_payments.${rail}`;

// The evaluation a policy hold came from, per transaction, so its approval links back to it.
const heldEvaluations = new WeakMap<DatabaseTransactionConnection, string>();

function policyGate(): PolicySeam {
  return {
    async evaluate(tx, scope, call) {
      const gate = await runGate(tx, scope.orgId, scope.projectId, {
        agentId: call.agentId,
        toolName: call.toolName,
        amountMinor: call.amountMinor,
        currency: call.currency,
        now: new Date(),
        approved: call.approved,
      });
      const { decision } = gate;
      if (decision.decision === 'allow') return { decision: 'allow', ruleId: decision.rule?.id ?? null };
      if (decision.decision === 'deny')
        return {
          decision: 'deny',
          reason: decision.reason,
          ruleType: decision.rule.type,
          ruleId: decision.rule.id,
          ruleName: decision.rule.name,
        };
      heldEvaluations.set(tx, gate.evaluationId);
      return {
        decision: 'approval',
        reason: decision.reason,
        ruleType: decision.rule.type,
        ruleId: decision.rule.id,
        ruleName: decision.rule.name,
      };
    },
  };
}

function approvalHolds(): ApprovalSeam {
  return {
    async raise(tx, scope, held) {
      const stored = await tx.oneFirst(sql.type(z.object({ settings: z.record(z.unknown()) }))`
        SELECT settings FROM projects WHERE org_id = ${scope.orgId} AND id = ${scope.projectId}`);
      const request = held.payload;
      const approval = await createApproval(tx, scope, {
        agentId: held.agentId,
        sessionId: held.sessionId,
        ruleId: held.ruleId,
        ruleName: held.ruleName,
        toolName: consumerSpendTool(request.rail ?? 'pix'),
        toolInput: {
          attempt_id: held.attemptId,
          mandate_id: request.mandateId,
          amount_minor: request.amountMinor,
          currency: request.currency,
          payee: request.payeeCanonical,
          purpose: request.purpose,
          reason: held.reason,
        },
        kind: CONSUMER_SPEND_KIND,
        payload: held.payload,
        originRef: held.attemptId,
        ttlSeconds: Number(effectiveSettings(stored).approval_ttl_seconds),
      });
      const evaluationId = heldEvaluations.get(tx);
      if (evaluationId) await linkEvaluationToApproval(tx, scope.orgId, evaluationId, approval.id);
      return { approvalId: approval.id, expiresAt: approval.expires_at };
    },
  };
}

export function wiredSeams(ring: KeyRing): ConsumerPaymentSeams {
  return {
    mandates: mandatePaymentSeam(ring),
    funds: ledgerFundsSeam(),
    policies: policyGate(),
    approvals: approvalHolds(),
  };
}
