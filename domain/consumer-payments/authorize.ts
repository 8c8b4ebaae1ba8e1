// Authorizing a consumer spend, in one transaction: verify the mandate (signature, agent, active and
// unexpired), then purpose, currency slot, per-transaction cap, cumulative and periodic caps (reserved
// atomically), merchant or withdrawal allowlist, policy rules, and the hold on the consumer's balance.
// Every step lands in the audit. A retry of an attempt that already holds money skips all of it.
import type { DatabasePool } from '../../runtime/database';
import type { DeniedBy } from '../../contracts/policy-denial';
import { ApiError } from '../errors';
import type { EventScope } from '../events/record';
import { pixAllowlistMatches } from '../pix/payee';
import { authorizeTedDestination } from '../ted/payee';
import { lockAttempt, markHeld, reopenForApproval, storedAnswer } from './attempts';
import { appendStep } from '../../contracts/attempt-audit';
import { reserveCaps, resolveReservation } from './caps';
import type { ConsumerPaymentSeams, Funding, MandateTerms } from './seams';
import type {
  AuditStep,
  SpendAnswer,
  SpendRefusalInfo,
  SpendRequest,
  TermsSummary,
} from '../../contracts/consumer-spend';

export type { TermsSummary } from '../../contracts/consumer-spend';

export type Authorization =
  | { kind: 'answered'; answer: SpendAnswer; audit: AuditStep[] }
  | { kind: 'refused'; refusal: SpendRefusalInfo; audit: AuditStep[]; terms: TermsSummary | null }
  | {
      kind: 'requires_approval';
      approvalId: string;
      expiresAt: string;
      reason: string;
      policy?: DeniedBy;
      audit: AuditStep[];
      terms: TermsSummary;
    }
  | {
      kind: 'held';
      holdId: string;
      audit: AuditStep[];
      terms: TermsSummary;
      sourceAccount: string | null;
      retried: boolean;
    };

/**
 * Where the money comes from. Pix under a `pix-consent` mandate is pulled at the PSP through the consumer's
 * consented funding source; everything else (TED, Pix on a partner account) leaves the consumer's own
 * sub-account.
 */
export function fundingOf(rail: SpendRequest['rail'], fundingRail: string): Funding {
  return rail === 'pix' && fundingRail === 'pix-consent' ? 'consent_pull' : 'sub_account';
}

const summary = (t: MandateTerms, rail: SpendRequest['rail']): TermsSummary => ({
  mandateId: t.mandateId,
  consumerId: t.consumerId,
  currency: t.currency,
  capMinor: t.capMinor.toString(),
  nonce: t.nonce,
  scope: t.scope,
  signature: t.signature,
  funding: fundingOf(rail, t.fundingRail),
  fundingSourceId: t.fundingSourceId,
});

class Refusal extends Error {
  constructor(readonly info: SpendRefusalInfo) {
    super(info.message);
  }
}
const refuse = (status: number, code: string, message: string, details?: Record<string, unknown>) =>
  new Refusal({ status, code, message, details });

function slotFor(terms: MandateTerms, currency: string, rail: string) {
  if (terms.slots.length > 0)
    return terms.slots.find((s) => s.currency === currency && (s.rail === rail || s.rail === '*')) ?? null;
  return terms.currency === currency
    ? { currency, rail, capMinor: terms.capMinor, perTxCapMinor: terms.perTxCapMinor }
    : null;
}

export async function authorizeSpend(
  db: DatabasePool,
  seams: ConsumerPaymentSeams,
  req: SpendRequest,
  settings: { tedMerchantFallback: boolean },
  /** The workflow type that runs the attempt: an approved replay runs under it from now on. */
  workflowType: string,
): Promise<Authorization> {
  const scope: EventScope = { orgId: req.orgId, projectId: req.projectId, environment: req.environment };
  const audit: AuditStep[] = [];
  const step = (name: string, status: AuditStep['status'], detail: string) =>
    appendStep(audit, name, status, detail);
  let terms: MandateTerms | null = null;
  try {
    return await db.transaction(async (tx) => {
      // The pool runs this callback again after a deadlock or serialization failure: each try tells
      // its own story, so the steps of a rolled-back try must not stay in the audit.
      audit.length = 0;
      terms = null;
      // Lock order, shared by every writer of a consumer spend (settle.ts, funds.ts): the attempt row,
      // the mandate row, the mandate's cap lock, the policy gate's locks (the agent's, then its budgets'),
      // then the consumer's wallet and its balance slot. Settling takes the mandate before the wallet too,
      // so the two cannot deadlock.
      const attempt = await lockAttempt(tx, scope, req.attemptId);
      // An approved hold replays the attempt under its own workflow: the stored 403 no longer answers it.
      const reopened = Boolean(req.approvedBy) && attempt.status === 'requires_approval';
      if (reopened) await reopenForApproval(tx, scope, req.attemptId, workflowType, req.workflowId);
      // An answered attempt is never authorized again: a late run of it (a second run started under the
      // same workflow id after the first closed) gets the stored answer, and reserves or holds nothing.
      const answered = reopened ? null : storedAnswer(attempt);
      if (answered) return { kind: 'answered', answer: answered, audit: [] };
      terms = await seams.mandates.verify(tx, scope, {
        mandate: req.mandate,
        signature: req.signature,
        agentId: req.agentId,
      });
      step('signature', 'pass', `HMAC over the canonical mandate ${terms.mandateId} verifies`);
      step('agent', 'pass', `agent_id ${req.agentId} is the signed agent`);
      step('mandate', 'pass', `active, expires ${terms.expiresAt}`);

      if (attempt.holds_money && attempt.hold_id) {
        // Rule 2: money is already held for this attempt; it is not judged again, only finished.
        step('policy', 'skip', 'attempt already holds money; not re-evaluated');
        step('hold', 'pass', `existing hold ${attempt.hold_id}`);
        const source =
          req.rail === 'ted' ? await seams.funds.sourceAccount(tx, scope, terms.consumerId) : null;
        return {
          kind: 'held',
          holdId: attempt.hold_id,
          audit,
          terms: summary(terms, req.rail),
          sourceAccount: source,
          retried: true,
        };
      }
      const actor = req.actor;
      if (
        actor &&
        ((actor.type === 'consumer' && actor.id !== undefined && actor.id !== terms.consumerId) ||
          (actor.on_behalf_of !== undefined && actor.on_behalf_of !== terms.consumerId))
      ) {
        throw refuse(400, 'actor_consumer_mismatch', "actor names a consumer other than the mandate's", {
          consumer_id: terms.consumerId,
        });
      }
      if (req.purpose !== terms.purpose)
        throw refuse(422, 'purpose_mismatch', `purpose "${req.purpose}" is not the signed purpose`, {
          signed_purpose: terms.purpose,
        });
      step('purpose', 'pass', `purpose ${req.purpose}`);

      const slot = slotFor(terms, req.currency, req.rail);
      if (!slot)
        throw refuse(
          403,
          'currency_not_authorized',
          `The mandate authorizes no ${req.currency} slot for ${req.rail}`,
          { currency: req.currency, rail: req.rail },
        );
      step('currency', 'pass', `${req.currency} slot for ${req.rail}`);

      const amount = BigInt(req.amountMinor);
      if (amount > slot.perTxCapMinor) {
        const details = {
          amount_minor: req.amountMinor,
          per_tx_cap_minor: slot.perTxCapMinor.toString(),
          currency: req.currency,
        };
        if (req.rail === 'ted' || req.approvedBy === null) {
          if (req.rail === 'ted')
            throw refuse(
              422,
              'per_tx_cap_exceeded',
              "The amount is above the mandate's per-transaction cap",
              details,
            );
          step('per_tx_cap', 'fail', `${req.amountMinor} above ${slot.perTxCapMinor}: waits for a person`);
          const held = await seams.approvals.raise(tx, scope, {
            attemptId: req.attemptId,
            agentId: req.agentId,
            sessionId: req.sessionId,
            reason: 'per_tx_cap_exceeded',
            ruleId: null,
            ruleName: null,
            payload: req,
          });
          step('approval', 'pass', `held as ${held.approvalId} until ${held.expiresAt}`);
          return {
            kind: 'requires_approval',
            approvalId: held.approvalId,
            expiresAt: held.expiresAt,
            reason: 'per_tx_cap_exceeded',
            audit,
            terms: summary(terms, req.rail),
          };
        }
        step('per_tx_cap', 'pass', `above ${slot.perTxCapMinor}, approved by ${req.approvedBy}`);
      } else {
        step('per_tx_cap', 'pass', `${req.amountMinor} within ${slot.perTxCapMinor}`);
      }

      const caps = await reserveCaps(tx, scope, {
        mandateId: terms.mandateId,
        currency: req.currency,
        attemptId: req.attemptId,
        amountMinor: amount,
        capMinor: slot.capMinor,
        periodic: terms.periodicCap,
      });
      if (!caps.ok) {
        throw refuse(
          422,
          caps.code,
          caps.code === 'cumulative_cap_exceeded'
            ? "The spend would exceed the mandate's cumulative cap"
            : "The spend would exceed the mandate's periodic cap",
          {
            amount_minor: req.amountMinor,
            cap_minor: caps.capMinor.toString(),
            used_minor: caps.usedMinor.toString(),
            currency: req.currency,
          },
        );
      }
      step('cumulative_cap', 'pass', `${caps.cumulativeAfter} of ${slot.capMinor} reserved`);
      step(
        'periodic_cap',
        caps.periodicAfter === null ? 'skip' : 'pass',
        caps.periodicAfter === null
          ? 'no periodic cap signed'
          : `${caps.periodicAfter} of ${terms.periodicCap!.capMinor} per ${terms.periodicCap!.window}`,
      );

      if (req.rail === 'ted') {
        const t = req.ted!;
        const verdict = authorizeTedDestination(
          { ispb: t.ispb, branch: t.branch, account: t.account },
          { withdrawalAllowlist: terms.withdrawalAllowlist, merchantAllowlist: terms.merchantAllowlist },
          settings.tedMerchantFallback,
        );
        if (!verdict.ok)
          throw refuse(
            403,
            'withdrawal_pin',
            'The TED destination is not named in the signed withdrawal allowlist',
            { payee: req.payeeCanonical },
          );
        step('allowlist', 'pass', `destination named in the signed ${verdict.via}`);
      } else {
        const key = { type: req.pix!.keyType as never, key: req.pix!.key };
        const named =
          terms.merchantAllowlist.includes('*') ||
          terms.merchantAllowlist.some(
            (entry) => pixAllowlistMatches(entry, key) || entry === req.payeeCanonical,
          );
        if (!named)
          throw refuse(403, 'merchant_not_allowed', 'The payee is not in the signed merchant allowlist', {
            payee: req.payeeCanonical,
          });
        step(
          'allowlist',
          'pass',
          terms.merchantAllowlist.includes('*')
            ? 'wildcard merchant allowlist (bounded by caps, purpose, expiry)'
            : 'payee named in the signed merchant allowlist',
        );
      }

      // An approved spend satisfies the rules that asked for a person; its budgets, limits and denials
      // still hold, as for an approved wallet execute.
      const decision = await seams.policies.evaluate(tx, scope, {
        agentId: req.agentId,
        toolName: `consumer_payments.${req.rail}`,
        amountMinor: amount,
        currency: req.currency,
        approved: Boolean(req.approvedBy),
      });
      if (decision.decision === 'deny') {
        const policy = {
          reason: decision.reason,
          ruleType: decision.ruleType,
          ruleId: decision.ruleId,
          ruleName: decision.ruleName,
        };
        throw new Refusal({
          status: 403,
          code: decision.reason,
          message: `Denied by ${decision.ruleType} rule ${decision.ruleId}`,
          policy,
        });
      }
      if (decision.decision === 'approval') {
        step('policy', 'fail', `approval_required by rule ${decision.ruleId}`);
        const held = await seams.approvals.raise(tx, scope, {
          attemptId: req.attemptId,
          agentId: req.agentId,
          sessionId: req.sessionId,
          reason: decision.reason,
          ruleId: decision.ruleId,
          ruleName: decision.ruleName,
          payload: req,
        });
        step('approval', 'pass', `held as ${held.approvalId} until ${held.expiresAt}`);
        // No money is held and nothing counts against the caps while a person decides; the replay reserves again.
        await resolveReservation(tx, scope, req.attemptId, 'released');
        const policy = {
          reason: decision.reason,
          ruleType: decision.ruleType,
          ruleId: decision.ruleId,
          ruleName: decision.ruleName,
        };
        return {
          kind: 'requires_approval',
          approvalId: held.approvalId,
          expiresAt: held.expiresAt,
          reason: decision.reason,
          policy,
          audit,
          terms: summary(terms, req.rail),
        };
      }
      const allowed = decision.ruleId ? `allowed by rule ${decision.ruleId}` : 'allowed';
      step('policy', 'pass', req.approvedBy ? `${allowed}, approved by ${req.approvedBy}` : allowed);

      const funding = fundingOf(req.rail, terms.fundingRail);
      const move = {
        consumerId: terms.consumerId,
        mandateId: terms.mandateId,
        attemptId: req.attemptId,
        currency: req.currency,
        amountMinor: amount,
        rail: req.rail,
        funding,
        agentId: req.agentId,
      };
      const hold = await seams.funds.hold(tx, scope, move);
      if ('insufficientFunds' in hold) {
        throw refuse(422, 'insufficient_funds', "The consumer's balance cannot cover the amount", {
          available_minor: hold.availableMinor.toString(),
          amount_minor: req.amountMinor,
        });
      }
      await markHeld(tx, scope, req.attemptId, { consumerId: terms.consumerId, holdId: hold.holdId });
      step(
        'hold',
        'pass',
        funding === 'consent_pull'
          ? `${req.amountMinor} ${req.currency} to be pulled through the consumer's consented funding source (${hold.holdId})`
          : `held ${req.amountMinor} ${req.currency} as ${hold.holdId}`,
      );
      const source = req.rail === 'ted' ? await seams.funds.sourceAccount(tx, scope, terms.consumerId) : null;
      return {
        kind: 'held',
        holdId: hold.holdId,
        audit,
        terms: summary(terms, req.rail),
        sourceAccount: source,
        retried: false,
      };
    });
  } catch (error) {
    // The transaction rolled back: no reservation, hold or approval from this try remains.
    const t = terms as MandateTerms | null;
    if (error instanceof Refusal) {
      step(error.info.code, 'fail', error.info.message);
      return { kind: 'refused', refusal: error.info, audit, terms: t ? summary(t, req.rail) : null };
    }
    if (error instanceof ApiError) {
      step(audit.length === 0 ? 'mandate' : 'authorize', 'fail', `${error.code}: ${error.message}`);
      return {
        kind: 'refused',
        refusal: { status: error.status, code: error.code, message: error.message, details: error.details },
        audit,
        terms: t ? summary(t, req.rail) : null,
      };
    }
    throw error;
  }
}
