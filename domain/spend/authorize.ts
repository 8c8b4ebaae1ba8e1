// The first step of a spend attempt, in one transaction: the policy gate (one evaluation row), then either
// a hold on the wallet, an approval for a held call, or a refusal. A retry after commit finds its own
// evaluation row (keyed by the attempt) and answers the same.
import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool, DatabaseTransactionConnection } from '../../runtime/database';
import { createApproval } from '../approvals/approvals';
import { ApiError } from '../errors';
import type { EventScope } from '../events/record';
import { withLedgerErrors } from '../ledger/conflicts';
import { LOCK_TIMEOUT, lockSlot, postLocked } from '../ledger/post';
import { agentLock, linkEvaluationToApproval, runGate } from '../policies/gate';
import { rulesJson, rulesOf } from '../policies/policies';
import { effectiveSettings } from '../tenancy/settings';
import type { Authorization, SpendInput } from '../../contracts/spend';

export const WALLET_EXECUTE_TOOL = 'wallet.execute';
export const WALLET_EXECUTE_KIND = 'wallet.execute';

const priorRow = z.object({
  id: z.string(),
  decision: z.enum(['allow', 'deny']),
  denial_reason: z.string().nullable(),
  rule_id: z.string().nullable(),
  rule_name: z.string().nullable(),
  rule_type: z.string().nullable(),
  approval_id: z.string().nullable(),
});
const holdRow = z.object({ id: z.string() });
const walletAndPrior = z.object({
  status: z.string(),
  lock_timeout: z.string(),
  agent_lock: z.string(),
  rules: z.unknown(),
  prior: z.unknown().nullable(),
});
const approvalRef = z.object({ id: z.string(), expires_at: z.string() });

export function attemptRef(input: Pick<SpendInput, 'attemptId' | 'approvalId'>): string {
  return input.approvalId ? `${input.attemptId}#${input.approvalId}` : input.attemptId;
}

async function ttlSeconds(tx: DatabaseTransactionConnection, input: SpendInput): Promise<number> {
  const stored = await tx.oneFirst(sql.type(z.object({ settings: z.record(z.unknown()) }))`
    SELECT settings FROM projects WHERE org_id = ${input.orgId} AND id = ${input.projectId}`);
  return Number(effectiveSettings(stored).approval_ttl_seconds);
}

/**
 * Rebuilds the answer of a transaction that committed before its activity could report it, from its
 * evaluation row (read with the wallet).
 */
async function prior(
  tx: DatabaseTransactionConnection,
  input: SpendInput,
  row: z.infer<typeof priorRow>,
): Promise<Authorization> {
  const denial = {
    reason: row.denial_reason ?? '',
    ruleType: row.rule_type ?? '',
    ruleId: row.rule_id ?? '',
    ruleName: row.rule_name ?? '',
  };
  if (row.decision === 'allow') {
    const hold = await tx.maybeOne(
      sql.type(
        holdRow,
      )`SELECT id FROM wallet_holds WHERE wallet_id = ${input.walletId} AND attempt_id = ${input.attemptId}`,
    );
    return hold
      ? { kind: 'held', holdId: hold.id, evaluationId: row.id, ruleId: row.rule_id, resumed: true }
      : { kind: 'insufficient_funds', evaluationId: row.id, available: 'unknown' };
  }
  if (row.denial_reason === 'approval_required' && row.approval_id) {
    const approval = await tx.one(
      sql.type(
        approvalRef,
      )`SELECT id, expires_at FROM approvals WHERE org_id = ${input.orgId} AND id = ${row.approval_id}`,
    );
    return {
      kind: 'requires_approval',
      denial,
      evaluationId: row.id,
      approvalId: approval.id,
      expiresAt: approval.expires_at,
      ttlSeconds: await ttlSeconds(tx, input),
    };
  }
  return { kind: 'denied', denial, evaluationId: row.id };
}

export async function authorizeSpend(db: DatabasePool, input: SpendInput): Promise<Authorization> {
  const scope: EventScope = {
    orgId: input.orgId,
    projectId: input.projectId,
    environment: input.environment,
  };
  return withLedgerErrors(() =>
    db.transaction(async (tx) => {
      // One statement sets the lock wait, takes the agent's policy lock (runGate's), locks the wallet (shared)
      // and reads an evaluation this attempt's step already wrote, saving three round trips.
      const wallet = await tx.maybeOne(sql.type(walletAndPrior)`
      SELECT w.status, set_config('lock_timeout', ${LOCK_TIMEOUT}, true) AS lock_timeout,
        ${agentLock(input.projectId, input.agentId)}::text AS agent_lock,
        ${rulesJson(input.orgId, input.projectId)} AS rules,
        (SELECT to_jsonb(p) FROM (
          SELECT id, decision, denial_reason, rule_id, rule_name, rule_type, approval_id FROM policy_evaluations
          WHERE org_id = ${input.orgId} AND attempt_ref = ${attemptRef(input)}) p) AS prior
      FROM wallets w WHERE w.org_id = ${input.orgId} AND w.project_id = ${input.projectId} AND w.id = ${input.walletId} FOR SHARE OF w`);
      if (!wallet) throw new ApiError(404, 'not_found', 'Wallet not found');
      if (wallet.prior) return prior(tx, input, priorRow.parse(wallet.prior));
      if (wallet.status !== 'active') return { kind: 'wallet_not_active', status: wallet.status };

      const amount = BigInt(input.amountMinor);
      const gate = await runGate(
        tx,
        input.orgId,
        input.projectId,
        {
          agentId: input.agentId,
          toolName: input.toolName ?? WALLET_EXECUTE_TOOL,
          amountMinor: amount,
          currency: input.currency,
          now: new Date(),
          approved: Boolean(input.approvalId),
        },
        { attemptRef: attemptRef(input), agentLocked: true, rules: rulesOf(wallet.rules), writeLater: true },
      );
      const { decision } = gate;
      // An allowed call writes its evaluation beside the slot's lock; any other writes it now.
      if (decision.decision !== 'allow') await tx.query(sql.unsafe`${gate.evaluation!}`);
      if (decision.decision === 'deny') {
        return {
          kind: 'denied',
          evaluationId: gate.evaluationId,
          denial: {
            reason: decision.reason,
            ruleType: decision.rule.type,
            ruleId: decision.rule.id,
            ruleName: decision.rule.name,
          },
        };
      }
      if (decision.decision === 'hold') {
        const ttl = await ttlSeconds(tx, input);
        const { approvalId: _ignored, ...payload } = input;
        const approval = await createApproval(tx, scope, {
          agentId: input.agentId,
          sessionId: null,
          ruleId: decision.rule.id,
          ruleName: decision.rule.name,
          toolName: input.toolName ?? WALLET_EXECUTE_TOOL,
          // A provider tool's approver sees the exact call, beside what it holds.
          toolInput: input.providerTool
            ? {
                ...input.providerTool.arguments,
                wallet_id: input.walletId,
                amount_minor: input.amountMinor,
                currency: input.currency,
                attempt_id: input.attemptId,
              }
            : {
                wallet_id: input.walletId,
                amount_minor: input.amountMinor,
                currency: input.currency,
                recipient: input.recipient,
                description: input.description,
                mandate_id: input.mandateId,
                attempt_id: input.attemptId,
              },
          kind: WALLET_EXECUTE_KIND,
          payload,
          originRef: input.attemptId,
          ttlSeconds: ttl,
        });
        await linkEvaluationToApproval(tx, input.orgId, gate.evaluationId, approval.id);
        return {
          kind: 'requires_approval',
          evaluationId: gate.evaluationId,
          approvalId: approval.id,
          expiresAt: approval.expires_at,
          ttlSeconds: ttl,
          denial: {
            reason: decision.reason,
            ruleType: decision.rule.type,
            ruleId: decision.rule.id,
            ruleName: decision.rule.name,
          },
        };
      }
      const slot = await lockSlot(tx, scope, input.walletId, input.currency, gate.evaluation);
      if (slot.available_minor < amount)
        return {
          kind: 'insufficient_funds',
          evaluationId: gate.evaluationId,
          available: slot.available_minor.toString(),
        };
      const held = await postLocked(
        tx,
        scope,
        {
          walletId: input.walletId,
          currency: input.currency,
          kind: 'hold',
          amount,
          mandateId: input.mandateId,
          attemptId: input.attemptId,
          agentId: input.agentId,
          metadata: {
            purpose: input.purpose,
            recipient: input.recipient,
            ...(input.approvalId ? { approval_id: input.approvalId } : {}),
          },
        },
        slot,
        // No evaluation of this attempt was found above, so it holds nothing yet (the hold's unique
        // attempt index refuses a second one).
        { hold: null },
      );
      return {
        kind: 'held',
        holdId: held.entry.hold_id!,
        evaluationId: gate.evaluationId,
        ruleId: decision.rule?.id ?? null,
      };
    }),
  );
}
