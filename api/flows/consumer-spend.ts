// A consumer spend answered when its attempt settles: the one function behind `POST
// /v1/consumer-payments/execute`, the registered-mandate spend and the gateway's `consumer.spend` tool.
import type { SpendAnswer } from '../../contracts/consumer-spend';
import type { SpendBodyValues } from '../../schema/http/consumer-payments';
import { replayedReply } from '../attempt-engine';
import { awaitAnswer, prepareSpend, startSpend } from '../consumer-spend-runner';
import type { AppDeps } from '../deps';
import type { Principal } from '../principal';
import type { Reply } from '../route';

/** Every replay says so twice, in the body and in the header, whichever path found the stored answer. */
export function spendReply(answer: SpendAnswer): Reply {
  return {
    status: answer.httpStatus,
    body: answer.body,
    ...(answer.body.idempotent_replay === true ? { headers: { 'Idempotent-Replayed': 'true' } } : {}),
  };
}

export async function executeConsumerSpend(
  deps: AppDeps,
  principal: Principal,
  body: SpendBodyValues,
  mandate: unknown,
  requestId: string,
): Promise<Reply> {
  const run = await startSpend(deps, await prepareSpend(deps, principal, body, mandate, requestId));
  // A replay goes out as stored, already serialized. A settled one is final for these bytes unless they
  // name a session, whose state the next presentation must check again.
  if (run.kind === 'replay') {
    const reply = replayedReply(run.status, run.json);
    return run.settled && body.attempt_id !== undefined && body.session_id === undefined
      ? { ...reply, final: { attemptId: body.attempt_id } }
      : reply;
  }
  return spendReply(await awaitAnswer(deps, run));
}
