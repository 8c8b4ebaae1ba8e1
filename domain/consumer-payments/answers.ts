// The bodies a spend answers with: the 200 SpendOutcome of a completed attempt and the refusals (the
// spec's error envelope plus the attempt id and the audit so far; a policy rule's refusal is the spec's
// flat denial body instead, as wallet execute answers it). Stored as built, replayed verbatim.
import type { DeniedBy } from '../../contracts/policy-denial';
import { flatDenial } from '../policies/denial';
import type { AuditStep, SpendAnswer, SpendRefusalInfo, SpendRequest } from '../../contracts/consumer-spend';

export function refusalAnswer(
  req: SpendRequest,
  refusal: SpendRefusalInfo,
  audit: AuditStep[],
  status: SpendAnswer['status'] = 'refused',
): SpendAnswer {
  const head = refusal.policy
    ? flatDenial(refusal.policy)
    : {
        error: {
          code: refusal.code,
          message: refusal.message,
          ...(refusal.details ? { details: refusal.details } : {}),
        },
      };
  return {
    httpStatus: refusal.status,
    status,
    body: {
      ...head,
      request_id: req.requestId,
      attempt_id: req.attemptId,
      idempotent_replay: false,
      audit,
    },
  };
}

/** A spend held for a person: a policy rule's hold answers the flat denial body, the per-transaction cap's the envelope. */
export function approvalAnswer(
  req: SpendRequest,
  approval: { approvalId: string; expiresAt: string; reason: string; policy?: DeniedBy },
  audit: AuditStep[],
): SpendAnswer {
  if (approval.policy) {
    const body = flatDenial(approval.policy, { id: approval.approvalId, expires_at: approval.expiresAt });
    return {
      httpStatus: 403,
      status: 'requires_approval',
      body: {
        ...body,
        request_id: req.requestId,
        attempt_id: req.attemptId,
        idempotent_replay: false,
        audit,
      },
    };
  }
  const refusal = {
    status: 403,
    code: 'approval_required',
    message: 'The payment waits for a person to approve it; poll GET /v1/approvals/{id}/status',
    details: { approval_id: approval.approvalId, expires_at: approval.expiresAt, reason: approval.reason },
  };
  const answer = refusalAnswer(req, refusal, audit, 'requires_approval');
  return {
    ...answer,
    body: { ...answer.body, approval_id: approval.approvalId, expires_at: approval.expiresAt },
  };
}

export function uncertainAnswer(req: SpendRequest, audit: AuditStep[], detail: string): SpendAnswer {
  return refusalAnswer(
    req,
    {
      status: 502,
      code: 'psp_dispatch_uncertain',
      message:
        "The provider's outcome is unknown. Present the same attempt_id again (never a new one): the gateway asks the provider and never pays twice.",
      details: { reason: detail },
    },
    audit,
    'dispatch_uncertain',
  );
}
