// One approved card authorization's expiry (`card-authorization/<issuer>/<issuer authorization id>`), started
// once its decision commits: a durable timer to the authorization's expires_at, after which the engine's
// release step of the card family frees what the approval still holds. The issuer's capture, reversal or
// own expiry closing the authorization first signals it, and it ends without touching money; a signal that
// never comes costs nothing, as the release finds nothing pending.
import { condition, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  cardAuthorizationClosedSignal,
  type CardAuthorizationExpiryInput,
  type CardAuthorizationExpiryOutcome,
} from '../contracts/card-authorization';

// The release must land for the hold to be freed, so an outage only delays it; it is never given up on.
const ending = proxyLocalActivities<Activities>({
  startToCloseTimeout: '15 seconds',
  localRetryThreshold: '10 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export async function cardAuthorizationExpiry(
  input: CardAuthorizationExpiryInput,
): Promise<CardAuthorizationExpiryOutcome> {
  let closed = false;
  setHandler(cardAuthorizationClosedSignal, () => {
    closed = true;
  });
  const untilExpiry = Math.max(1, Date.parse(input.expiresAt) - Date.now());
  if (await condition(() => closed, untilExpiry)) return { status: 'closed_by_issuer' };
  const released = await ending.releaseAttemptIfHeld({
    attempt: { family: 'card_authorization', input: input.authorization },
    message: 'expired uncaptured',
  });
  return released.steps.some((step) => step.status === 'pass')
    ? { status: 'expired', releaseId: released.releaseId }
    : { status: 'closed_by_issuer' };
}
