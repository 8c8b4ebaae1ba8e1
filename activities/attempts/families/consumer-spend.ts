// Consumer spend (Pix and TED) as a family of the engine: the DICT payee lookup, then the mandate, caps,
// allowlists, policy and hold of domain/consumer-payments in one transaction; the rail's provider under the
// attempt's dispatch key, which may accept a Pix payment and settle it later; then the debit with its
// receipt, or the release. Each answer is worded and stored in the transaction that reaches it (the
// receipt, the mandate's spend and the ledger entries commit with it), so a replay is the stored bytes; the
// engine is handed only which answer was stored, and whoever answers reads it from the attempt's row.
//
// An unknown outcome answers psp_dispatch_uncertain at once; the provider is asked when the caller presents
// the attempt again (or its settlement notice arrives, or the engine's recheck), and the engine sends again
// only what the provider says it never received.
import { appendStep, type AuditStep } from '../../../contracts/attempt-audit';
import {
  ATTEMPT_WORKFLOW,
  NOT_RECEIVED,
  type AttemptStatus,
  type Looked,
  type Sent,
  type StoredAnswer,
} from '../../../contracts/attempt';
import type { SpendAnswer, SpendRefusalInfo, SpendRequest } from '../../../contracts/consumer-spend';
import { approvalAnswer, refusalAnswer, uncertainAnswer } from '../../../domain/consumer-payments/answers';
import { failBeforeDispatch } from '../../../domain/consumer-payments/fail-before-dispatch';
import { recordAnswer, releaseSpend, settleSpend } from '../../../domain/consumer-payments/settle';
import { wiredSeams } from '../../../domain/consumer-payments/wiring';
import {
  authorizeConsumer,
  dispatchSpend,
  lookupPayee,
  resolveDispatch,
  type DispatchResult,
} from '../../consumer-payments';
import type { ActivityDeps } from '../../deps';
import type { AttemptFamilySteps } from '../family';

/** A trail that goes on from the audit so far: the steps added here are the family's for this step. */
function trailFrom(audit: readonly AuditStep[]) {
  const trail = [...audit];
  const from = trail.length;
  return {
    trail,
    step: (name: string, status: AuditStep['status'], detail: string) =>
      appendStep(trail, name, status, detail),
    added: () => trail.slice(from),
  };
}

/** The engine's status of a stored answer. */
const STATUSES: Record<Exclude<SpendAnswer['status'], 'dispatch_uncertain'>, AttemptStatus> = {
  completed: 'completed',
  failed: 'failed',
  refused: 'failed',
  requires_approval: 'requires_approval',
};

/** What the provider said, as the engine reads a send, with the family's words for it. */
function sentOf(
  result: Exclude<DispatchResult, { kind: 'uncertain' | 'not_received' }>,
  step: Step,
): Exclude<Sent, { status: 'unknown' }> {
  if (result.kind === 'settled') {
    const { providerPaymentId, endToEndId, settledAt } = result.settlement;
    step('dispatch', 'pass', `settled as ${providerPaymentId}`);
    return {
      status: 'succeeded',
      paymentId: providerPaymentId,
      output: { end_to_end_id: endToEndId, settled_at: settledAt },
    };
  }
  if (result.kind === 'processing') {
    step('dispatch', 'pass', `accepted as ${result.providerPaymentId}; waiting for settlement`);
    return { status: 'processing', paymentId: result.providerPaymentId };
  }
  const { refusal } = result;
  step('dispatch', 'fail', `${refusal.code}: ${refusal.message}`);
  return {
    status: 'refused',
    code: refusal.code,
    message: refusal.message,
    output: { status: refusal.status, details: refusal.details ?? null },
  };
}
type Step = (name: string, status: AuditStep['status'], detail: string) => void;

/** The refusal a released spend answers with: the provider's own, or that it never received the payment. */
function refusalOf(sent: Extract<Sent, { status: 'refused' }>): SpendRefusalInfo {
  if (sent.code === NOT_RECEIVED)
    return {
      status: 502,
      code: 'psp_not_dispatched',
      message: 'The provider never received the payment; nothing moved',
    };
  const status = sent.output?.status;
  const details = sent.output?.details;
  return {
    status: typeof status === 'number' ? status : 422,
    code: sent.code,
    message: sent.message,
    ...(details && typeof details === 'object' ? { details: details as Record<string, unknown> } : {}),
  };
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** What the engine is handed of an answer stored in the attempt's row. */
const storedAs = (answer: SpendAnswer): StoredAnswer => ({ stored: answer.status });

export const consumerSpend: AttemptFamilySteps<'consumer_spend'> = {
  async authorize(deps, req) {
    const { trail, step } = trailFrom(req.preAudit);
    const refused = async (answer: SpendAnswer, consumerId: string | null) => {
      await recordAnswer(deps.db, req, answer, { consumerId, approvalId: null });
      const error = answer.body.error as { code?: string; message?: string } | undefined;
      return {
        kind: 'refused' as const,
        insufficientFunds: false,
        failure: error?.code ? { code: error.code, message: error.message ?? '' } : null,
        steps: trail,
        answer: storedAs(answer),
      };
    };
    if (req.rail === 'pix') {
      const owner = await lookupPayee(deps, req);
      if (!owner.found) {
        step('dict', 'fail', 'the Pix key is not registered in DICT');
        const refusal = {
          status: 422,
          code: 'pix_key_not_found',
          message: 'The Pix key is not registered in DICT',
        };
        return refused(refusalAnswer(req, refusal, trail), null);
      }
      step('dict', 'pass', `key owned by ${owner.ownerName} at ISPB ${owner.ispb}`);
    }
    const seams = wiredSeams(deps.config.encryptionKeys);
    const auth = await authorizeConsumer(deps, seams, req, ATTEMPT_WORKFLOW);
    // A run of an attempt already answered (another run under this id closed first) only repeats the answer.
    if (auth.kind === 'answered')
      return {
        kind: 'answered',
        status: STATUSES[auth.answer.status as keyof typeof STATUSES],
        answer: storedAs(auth.answer),
        steps: [],
      };
    for (const s of auth.audit) trail.push(s);
    if (auth.kind === 'refused')
      return refused(refusalAnswer(req, auth.refusal, trail), auth.terms?.consumerId ?? null);
    if (auth.kind === 'requires_approval') {
      const held = approvalAnswer(req, auth, trail);
      await recordAnswer(deps.db, req, held, {
        consumerId: auth.terms.consumerId,
        approvalId: auth.approvalId,
      });
      return {
        kind: 'requires_approval',
        denial: null,
        approvalId: auth.approvalId,
        expiresAt: auth.expiresAt,
        steps: trail,
        answer: storedAs(held),
      };
    }
    return {
      kind: 'held',
      holdId: auth.holdId,
      steps: trail,
      carry: { terms: auth.terms, sourceAccount: auth.sourceAccount },
      resumed: auth.retried,
    };
  },

  async send(deps, req, { carry, resent }) {
    const { step, added } = trailFrom([]);
    step(
      'dispatch',
      'pass',
      resent
        ? 'resent under the same key: the provider never received it'
        : `sent to the ${req.rail} provider under the attempt's key`,
    );
    // A consent pull names the consumer's funding source the PSP takes the money from.
    const { terms, sourceAccount } = carry;
    const result = await dispatchSpend(deps, {
      req,
      sourceAccount,
      fundingSourceId: terms.funding === 'consent_pull' ? (terms.fundingSourceId ?? null) : null,
    });
    if (result.kind === 'uncertain') return { status: 'unknown', message: result.detail, steps: added() };
    if (result.kind === 'not_received')
      return { status: 'unknown', message: 'the provider does not know the payment', steps: added() };
    const sent = sentOf(result, step);
    return { ...sent, steps: added() };
  },

  async lookup(deps, req, { message, round, reason, presented }, { audit, carry }): Promise<Looked> {
    const { trail, step, added } = trailFrom(audit);
    const uncertain = async (detail: string): Promise<Looked> => {
      step('dispatch', 'fail', `outcome unknown: ${detail}`);
      const answer = uncertainAnswer(req, trail, detail);
      await recordAnswer(deps.db, req, answer, { consumerId: carry.terms.consumerId, approvalId: null });
      return { sent: { status: 'uncertain', message: detail }, steps: added(), answer: storedAs(answer) };
    };
    // The caller hears of an unknown outcome at once; the provider is asked when the attempt is presented
    // again, its settlement notice arrives, or the engine's recheck comes.
    if (reason === 'unknown' && round === 0) return uncertain(message);
    if (reason === 'unknown')
      step(
        'resolve',
        'pass',
        presented ? 'attempt presented again: asking the provider' : 'asking the provider',
      );
    const result = await resolveDispatch(deps, req);
    if (result.kind === 'uncertain') return uncertain(result.detail);
    if (result.kind === 'not_received') return { sent: { status: 'not_received' }, steps: added() };
    return { sent: sentOf(result, step), steps: added() };
  },

  async settle(deps, { input: req, sent, holdId, audit, carry }) {
    const settlement = {
      providerPaymentId: sent.paymentId ?? '',
      endToEndId: text(sent.output?.end_to_end_id),
      settledAt: text(sent.output?.settled_at) ?? '',
      chargedMinor: null,
    };
    const seams = wiredSeams(deps.config.encryptionKeys);
    const answer = await settleSpend(deps.db, seams, deps.config.encryptionKeys, req, {
      terms: carry.terms,
      holdId,
      settlement,
      audit,
    });
    const wallet = answer.body.wallet as { debitId?: unknown } | undefined;
    const trail = (answer.body.audit as AuditStep[] | undefined) ?? audit;
    return {
      debitId: text(wallet?.debitId) ?? '',
      paymentId: settlement.providerPaymentId,
      output: null,
      split: null,
      steps: trail.slice(audit.length),
      answer: storedAs(answer),
    };
  },

  async release(deps, { input: req, sent, audit, carry }) {
    const { trail, step } = trailFrom(audit);
    if (sent.code === NOT_RECEIVED)
      step('dispatch', 'fail', 'the provider never received the payment; the hold is released');
    const refusal = refusalOf(sent);
    const answer = await releaseSpend(deps.db, wiredSeams(deps.config.encryptionKeys), req, {
      terms: carry.terms,
      refusal,
      audit: trail,
    });
    const stored = (answer.body.audit as AuditStep[] | undefined) ?? trail;
    return {
      releaseId: '',
      failure: { code: refusal.code, message: refusal.message },
      output: null,
      steps: stored.slice(audit.length),
      answer: storedAs(answer),
    };
  },

  async releaseIfHeld(deps, req: SpendRequest, message, { audit }) {
    const { trail, step } = trailFrom(audit);
    step('authorize', 'fail', `the attempt broke before its dispatch: ${message}`);
    const answer = await failBeforeDispatch(deps.db, wiredSeams(deps.config.encryptionKeys), req, {
      reason: message,
      audit: trail,
    });
    const stored = (answer.body.audit as AuditStep[] | undefined) ?? trail;
    return { releaseId: null, steps: stored.slice(audit.length), answer: storedAs(answer) };
  },
};
