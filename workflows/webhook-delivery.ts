// One delivery chain: the attempts of one event to one endpoint. A dispatched event's first attempt is
// made by the dispatcher (worker/first-attempts.ts), so its chain runs here from its first wait on;
// redeliveries, replays and test fires run here from attempt 1. Each attempt is an activity that POSTs and records a delivery row; between failures the chain sleeps on a durable timer for the
// scheduled backoff; while the endpoint is not active it waits for the reactivation signal. The
// attempt-now update (retry-pending) cuts a wait short and answers with that attempt's result.
import { allHandlersFinished, condition, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  attemptNowUpdate,
  endpointReactivatedSignal,
  type AttemptResult,
  type DeliveryChainInput,
  type DeliveryChainResult,
} from '../contracts/webhook-messages';

// The receiver timeout is 15 s; the rest is database time. Infrastructure failures retry; the HTTP
// outcome itself is never an activity failure, so a receiver's error is not retried twice. Attempts
// are local activities: one short HTTP call each, run by the worker holding the workflow task, which
// saves the server round trips of a scheduled activity (the difference between tens and hundreds of
// deliveries per second on a small machine).
const { attemptDelivery, expireHeldDelivery } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '45 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 20,
  },
});

/** A held attempt rechecks its endpoint this often even without a signal, in case one was lost. */
const HOLD_RECHECK_MS = 6 * 3_600_000;

export async function webhookDelivery(input: DeliveryChainInput): Promise<DeliveryChainResult> {
  let attempt = input.attempt;
  let waitMs = input.firstWaitMs ?? 0;
  let wake = false;
  let reactivated = false;
  let completed = 0;
  let last: AttemptResult | undefined;
  let finished = false;
  let inFlight = false;

  setHandler(endpointReactivatedSignal, () => {
    reactivated = true;
  });
  setHandler(attemptNowUpdate, async () => {
    const seen = completed;
    // An attempt already under way answers the update; only an idle chain is woken for a new one.
    if (!inFlight) wake = true;
    await condition(() => completed > seen || finished);
    return last!;
  });

  const run = async (): Promise<DeliveryChainResult> => {
    let heldForMs = 0;
    for (;;) {
      if (waitMs > 0 && !wake) await condition(() => wake, waitMs);
      wake = false;
      reactivated = false;
      inFlight = true;
      const result = await attemptDelivery({
        orgId: input.orgId,
        projectId: input.projectId,
        chainId: input.chainId,
        attempt,
        retrySchedule: input.retrySchedule,
      });
      inFlight = false;
      last = result;
      completed += 1;
      switch (result.kind) {
        case 'delivered':
          return { outcome: 'delivered', attempts: attempt };
        case 'dead':
          return { outcome: 'dead', attempts: attempt };
        case 'abandoned':
          return { outcome: 'abandoned', attempts: attempt };
        case 'retry':
          attempt += 1;
          waitMs = result.retryInMs;
          heldForMs = 0;
          break;
        case 'held': {
          if (heldForMs >= input.holdLimitMs) {
            await expireHeldDelivery({
              orgId: input.orgId,
              projectId: input.projectId,
              chainId: input.chainId,
              attempt,
            });
            return { outcome: 'dead', attempts: attempt };
          }
          const slice = Math.min(HOLD_RECHECK_MS, input.holdLimitMs - heldForMs);
          const woken = await condition(() => reactivated || wake, slice);
          if (!woken) heldForMs += slice;
          waitMs = 0;
          break;
        }
      }
    }
  };

  const result = await run();
  finished = true;
  await condition(allHandlersFinished);
  return result;
}
