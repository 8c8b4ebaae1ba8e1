// One consent token's life: pending until the consumer submits or its 24-hour timer expires it; once a
// mandate is signed, the mandate's own expiry timer (mandate_ttl_seconds from signing), moved by
// amendments and ended by a revocation. Postgres holds the state; this workflow holds the clocks.
import {
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { SEARCH_ATTRIBUTES } from '../contracts/search-attributes';
import {
  mandateAmendedSignal,
  mandateRevokedSignal,
  mandateSignedSignal,
  type ConsentLifecycleInput,
  type ConsentLifecycleOutcome,
  type MandateTimer,
} from '../contracts/consent-messages';

// Expiries must eventually land: retry with backoff until the database answers.
const { expireConsentToken, expireMandateTimer } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export async function consentLifecycle(input: ConsentLifecycleInput): Promise<ConsentLifecycleOutcome> {
  let mandate: MandateTimer | undefined = input.mandate;
  let amendment: MandateTimer | undefined;
  let revoked = false;
  setHandler(mandateSignedSignal, (signed) => {
    mandate ??= signed;
  });
  setHandler(mandateAmendedSignal, (amended) => {
    if (!amendment || amended.revision > amendment.revision) amendment = amended;
  });
  setHandler(mandateRevokedSignal, () => {
    revoked = true;
  });

  if (!mandate) {
    const submitted = await condition(() => mandate !== undefined, input.tokenExpiresInSeconds * 1000);
    if (!submitted) {
      const expiry = await expireConsentToken(input.consentId);
      // A submit that committed just before the timer fired wins; hold its mandate.
      if (expiry.outcome !== 'consumed') return 'token_expired';
      mandate ??= expiry.mandate;
    }
  }
  let held: MandateTimer = mandate!;
  upsertSearchAttributes([
    { key: SEARCH_ATTRIBUTES.MandateId, value: held.mandateId },
    { key: SEARCH_ATTRIBUTES.ConsumerId, value: held.consumerId },
  ]);

  let deadline = Date.now() + held.expiresInSeconds * 1000;
  for (;;) {
    if (revoked) return 'mandate_revoked';
    if (amendment && amendment.revision > held.revision) {
      held = amendment;
      deadline = Date.now() + held.expiresInSeconds * 1000;
    }
    if (workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof consentLifecycle>({
        consentId: input.consentId,
        tokenExpiresInSeconds: 0,
        mandate: { ...held, expiresInSeconds: Math.max(0, Math.ceil((deadline - Date.now()) / 1000)) },
      });
    }
    const remaining = deadline - Date.now();
    if (remaining > 0) {
      const woken = await condition(
        () => revoked || (amendment !== undefined && amendment.revision > held.revision),
        remaining,
      );
      if (woken) continue;
    }
    const result = await expireMandateTimer(held.mandateId, held.revision);
    if (result.outcome === 'expired') return 'mandate_expired';
    if (result.outcome === 'revoked') return 'mandate_revoked';
    if (result.outcome === 'moved') {
      // An amendment committed but its signal has not arrived: follow the database.
      held = { ...held, revision: result.revision, expiresInSeconds: result.expiresInSeconds };
      deadline = Date.now() + held.expiresInSeconds * 1000;
      continue;
    }
    return 'closed';
  }
}
