// The spec's flat policy-denial body: 403 `{reason, ruleType, ruleId}`, plus `approval_id` and `expires_at`
// when the call was held for an approval. Callers may add their own result fields alongside. Every lane
// that answers a policy denial (wallet execute, consumer spends, the policy check) builds it here.
import type { DeniedBy } from '../../contracts/policy-denial';
import { FlatError } from '../errors';
import type { Decision } from './evaluate';

export function flatDenial(
  denied: DeniedBy,
  approval?: { id: string; expires_at: string },
): Record<string, unknown> {
  return {
    reason: denied.reason,
    ruleType: denied.ruleType,
    ruleId: denied.ruleId,
    ruleName: denied.ruleName,
    ...(approval ? { approval_id: approval.id, expires_at: approval.expires_at } : {}),
  };
}

export function denialBody(
  decision: Exclude<Decision, { decision: 'allow' }>,
  approval?: { id: string; expires_at: string },
): Record<string, unknown> {
  return flatDenial(
    {
      reason: decision.reason,
      ruleType: decision.rule.type,
      ruleId: decision.rule.id,
      ruleName: decision.rule.name,
    },
    approval,
  );
}

export function policyDenial(body: Record<string, unknown>): FlatError {
  return new FlatError(403, body);
}
