// Settling or releasing a held consumer spend, each in one transaction. Settle: debit the hold, mark the
// cap reservation spent, record the mandate spend, seal the receipt, store the answer and write
// payment.succeeded. Release: give the hold back, free the reservation, store the refusal, payment.failed.
// Both are idempotent: a retry after a crash finds the stored answer and returns it.
import type { DatabasePool } from '../../runtime/database';
import type { KeyRing } from '../crypto/secret-box';
import type { EventScope } from '../events/record';
import { presentReceipt } from '../receipts/present';
import { sealReceipt } from '../receipts/receipts';
import { refusalAnswer } from './answers';
import { appendStep } from '../../contracts/attempt-audit';
import { lockAttempt, storeAnswer, storedAnswer } from './attempts';
import type { TermsSummary } from './authorize';
import { reservationEnd } from './caps';
import type { ConsumerPaymentSeams } from './seams';
import type { AuditStep, SpendAnswer, SpendRefusalInfo, SpendRequest } from '../../contracts/consumer-spend';

export interface Settlement {
  providerPaymentId: string;
  endToEndId: string | null;
  settledAt: string;
  /** What the provider says it charged, when it says; a divergence is recorded, never fatal. */
  chargedMinor: string | null;
}

export async function settleSpend(
  db: DatabasePool,
  seams: ConsumerPaymentSeams,
  ring: KeyRing,
  req: SpendRequest,
  input: { terms: TermsSummary; holdId: string; settlement: Settlement; audit: AuditStep[] },
): Promise<SpendAnswer> {
  const scope: EventScope = { orgId: req.orgId, projectId: req.projectId, environment: req.environment };
  return db.transaction(async (tx) => {
    const attempt = await lockAttempt(tx, scope, req.attemptId);
    const earlier = storedAnswer(attempt);
    if (earlier) return earlier;
    const audit = [...input.audit];
    const step = (name: string, status: AuditStep['status'], detail: string) =>
      appendStep(audit, name, status, detail);
    const amount = BigInt(req.amountMinor);
    const { terms, settlement } = input;
    const funding = terms.funding ?? 'sub_account';
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
    // The lock order of authorize.ts: attempt, mandate, then the consumer's wallet. Recording the spend
    // below locks the mandate anyway (its foreign key); taken after the wallet, that deadlocked with
    // authorizations, which hold the mandate while they wait for the wallet.
    await seams.mandates.lockForSettle(tx, scope, terms.mandateId);
    const externalRef =
      funding === 'consent_pull'
        ? `pix-consent:${settlement.providerPaymentId}`
        : `${req.rail}:${settlement.providerPaymentId}`;
    const debit = await seams.funds.debit(tx, scope, { ...move, externalRef });
    step(
      'debit',
      'pass',
      funding === 'consent_pull'
        ? `pulled ${req.amountMinor} ${req.currency} through the consented funding source and paid out (${debit.debitId}, clearing)`
        : `debited ${req.amountMinor} ${req.currency} (${debit.debitId})`,
    );
    await seams.mandates.recordSpend(tx, scope, {
      mandateId: terms.mandateId,
      amountMinor: amount,
      currency: req.currency,
      attemptId: req.attemptId,
    });

    const exceptions: Array<{ code: string; detail: string }> = [];
    const charged = settlement.chargedMinor ?? req.amountMinor;
    if (charged !== req.amountMinor)
      exceptions.push({
        code: 'settlement_divergence',
        detail: `provider charged ${charged}, authorized ${req.amountMinor}`,
      });
    if (req.quote?.price_minor !== undefined && String(req.quote.price_minor) !== req.amountMinor) {
      exceptions.push({
        code: 'quote_divergence',
        detail: `quoted ${req.quote.price_minor}, settled ${req.amountMinor}`,
      });
    }
    const quote = req.quote && (req.quote.seller || req.quote.resource) ? { ...req.quote } : null;
    const receipt = await sealReceipt(tx, ring, scope, {
      consumerId: terms.consumerId,
      attemptId: req.attemptId,
      mandate: {
        id: terms.mandateId,
        nonce: terms.nonce,
        scope: terms.scope,
        currency: terms.currency,
        sig: terms.signature,
      },
      quote,
      payment: {
        rail: req.rail,
        amount_minor: req.amountMinor,
        amount_authorized: req.amountMinor,
        amount_charged: charged,
        amount_refunded: '0',
        metering: { basis: 'fixed', units: 1, unit_price: req.amountMinor },
        sandbox: req.environment === 'test',
        attempt_id: req.attemptId,
        money_moved: true,
        at: settlement.settledAt,
        payee: req.payeeCanonical,
        provider_payment_id: settlement.providerPaymentId,
        end_to_end_id: settlement.endToEndId,
      },
      actor: req.actor ? { ...req.actor } : null,
      approval: req.approval,
      exceptions,
    });
    step(
      'receipt',
      receipt ? 'pass' : 'skip',
      receipt
        ? `sealed ${receipt.id} (chain seq ${receipt.chain_seq})`
        : 'the consumer has no receipt secret to sign with',
    );
    const answer: SpendAnswer = {
      httpStatus: 200,
      status: 'completed',
      body: {
        status: 'completed',
        requestId: req.requestId,
        attempt_id: req.attemptId,
        idempotent_replay: false,
        audit,
        mandate: {
          id: terms.mandateId,
          consumer_id: terms.consumerId,
          currency: terms.currency,
          cap_minor: terms.capMinor,
        },
        payment: {
          rail: req.rail,
          amount_minor: req.amountMinor,
          currency: req.currency,
          payee: req.payeeCanonical,
          provider_payment_id: settlement.providerPaymentId,
          end_to_end_id: settlement.endToEndId,
          settled_at: settlement.settledAt,
          sandbox: req.environment === 'test',
        },
        wallet: { holdId: input.holdId, debitId: debit.debitId, releaseId: null, insufficientFunds: false },
        receipt: receipt ? presentReceipt(receipt) : null,
      },
    };
    await storeAnswer(
      tx,
      scope,
      req.attemptId,
      answer,
      {
        consumerId: terms.consumerId,
        providerPaymentId: settlement.providerPaymentId,
        receiptId: receipt?.id ?? null,
      },
      {
        data: {
          attempt_id: req.attemptId,
          consumer_id: terms.consumerId,
          mandate_id: terms.mandateId,
          rail: req.rail,
          amount_minor: req.amountMinor,
          currency: req.currency,
          provider_payment_id: settlement.providerPaymentId,
          receipt_id: receipt?.id ?? null,
        },
      },
      [reservationEnd(scope, req.attemptId, 'spent')],
    );
    return answer;
  });
}

export async function releaseSpend(
  db: DatabasePool,
  seams: ConsumerPaymentSeams,
  req: SpendRequest,
  input: { terms: TermsSummary; refusal: SpendRefusalInfo; audit: AuditStep[] },
): Promise<SpendAnswer> {
  const scope: EventScope = { orgId: req.orgId, projectId: req.projectId, environment: req.environment };
  return db.transaction(async (tx) => {
    const attempt = await lockAttempt(tx, scope, req.attemptId);
    const earlier = storedAnswer(attempt);
    if (earlier) return earlier;
    const audit = [...input.audit];
    const { terms } = input;
    const released = await seams.funds.release(tx, scope, {
      consumerId: terms.consumerId,
      mandateId: terms.mandateId,
      attemptId: req.attemptId,
      currency: req.currency,
      amountMinor: BigInt(req.amountMinor),
      rail: req.rail,
      funding: terms.funding ?? 'sub_account',
    });
    appendStep(
      audit,
      'release',
      'pass',
      `released the hold${released.releaseId ? ` (${released.releaseId})` : ''}`,
    );
    const answer = refusalAnswer(req, input.refusal, audit, 'failed');
    await storeAnswer(
      tx,
      scope,
      req.attemptId,
      answer,
      { consumerId: terms.consumerId },
      {
        data: {
          attempt_id: req.attemptId,
          consumer_id: terms.consumerId,
          mandate_id: terms.mandateId,
          rail: req.rail,
          amount_minor: req.amountMinor,
          code: input.refusal.code,
        },
      },
      [reservationEnd(scope, req.attemptId, 'released')],
    );
    return answer;
  });
}

/** Stores an answer reached before any money was held (refusal, approval) or while it is uncertain. */
export async function recordAnswer(
  db: DatabasePool,
  req: SpendRequest,
  answer: SpendAnswer,
  extra: { consumerId?: string | null; approvalId?: string | null } = {},
): Promise<void> {
  const scope: EventScope = { orgId: req.orgId, projectId: req.projectId, environment: req.environment };
  // A policy denial's body is the flat one: its reason is the code.
  const error = answer.body.error as { code?: string } | undefined;
  const code = error?.code ?? (typeof answer.body.reason === 'string' ? answer.body.reason : null);
  // One statement: its own transaction.
  await storeAnswer(
    db,
    scope,
    req.attemptId,
    answer,
    { ...extra, holdsMoney: answer.status === 'dispatch_uncertain' },
    {
      data: {
        attempt_id: req.attemptId,
        mandate_id: req.mandateId,
        rail: req.rail,
        amount_minor: req.amountMinor,
        code,
        approval_id: extra.approvalId ?? null,
      },
    },
  );
}
