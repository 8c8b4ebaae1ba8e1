// Ending a consumer spend that broke before its dispatch, in one transaction: whatever its authorization may
// have held (the hold on the consumer's sub-account, the mandate cap reservation) is given back and the
// attempt fails with `attempt_failed`, stored for replays, with payment.failed. The provider never got it.
import type { DatabasePool } from '../../runtime/database';
import { appendStep } from '../../contracts/attempt-audit';
import type { EventScope } from '../events/record';
import { refusalAnswer } from './answers';
import { lockAttempt, storeAnswer } from './attempts';
import { reservationEnd } from './caps';
import type { ConsumerPaymentSeams } from './seams';
import type { AuditStep, SpendAnswer, SpendRequest } from '../../contracts/consumer-spend';

const ATTEMPT_FAILED_MESSAGE =
  'The attempt broke before its dispatch: nothing was sent and nothing stays held. Pay again under a new attempt_id.';

/**
 * Idempotent: a retry finds the answer it stored. An answer stored before the break (a refusal, an approval
 * hold) stays the attempt's answer.
 */
export async function failBeforeDispatch(
  db: DatabasePool,
  seams: ConsumerPaymentSeams,
  req: SpendRequest,
  input: { reason: string; audit: AuditStep[] },
): Promise<SpendAnswer> {
  const scope: EventScope = { orgId: req.orgId, projectId: req.projectId, environment: req.environment };
  return db.transaction(async (tx) => {
    const attempt = await lockAttempt(tx, scope, req.attemptId);
    if (attempt.response_body && attempt.status !== 'processing' && attempt.status !== 'dispatch_uncertain')
      return {
        httpStatus: attempt.response_status ?? 200,
        status: attempt.status as SpendAnswer['status'],
        body: attempt.response_body,
      };
    const audit = [...input.audit];
    // The hold is written with the attempt's consumer in one transaction: no consumer, no hold. A consent
    // pull holds nothing on the sub-account, which the release finds for itself.
    const released = attempt.consumer_id
      ? await seams.funds.release(tx, scope, {
          consumerId: attempt.consumer_id,
          mandateId: req.mandateId,
          attemptId: req.attemptId,
          currency: req.currency,
          amountMinor: BigInt(req.amountMinor),
          rail: req.rail,
          funding: 'sub_account',
        })
      : { releaseId: null };
    if (released.releaseId) appendStep(audit, 'release', 'pass', `released the hold (${released.releaseId})`);
    const answer = refusalAnswer(
      req,
      {
        status: 500,
        code: 'attempt_failed',
        message: ATTEMPT_FAILED_MESSAGE,
        details: { reason: input.reason },
      },
      audit,
      'failed',
    );
    await storeAnswer(
      tx,
      scope,
      req.attemptId,
      answer,
      { consumerId: attempt.consumer_id },
      {
        data: {
          attempt_id: req.attemptId,
          consumer_id: attempt.consumer_id,
          mandate_id: req.mandateId,
          rail: req.rail,
          amount_minor: req.amountMinor,
          code: 'attempt_failed',
        },
      },
      [reservationEnd(scope, req.attemptId, 'released')],
    );
    return answer;
  });
}
