// A consumer spend's calls into domain/consumer-payments and the rail providers, for its family of the
// engine (attempts/families/consumer-spend.ts) and the workflow from before it. Provider calls carry the
// attempt's dispatch key; transport failures come back as `uncertain` (the provider is then asked), never
// as a second payment.
import { ApplicationFailure } from '@temporalio/activity';
import { CheckIntegrityConstraintViolationError } from 'slonik';
import { authorizeSpend, type Authorization, type TermsSummary } from '../domain/consumer-payments/authorize';
import { failBeforeDispatch } from '../domain/consumer-payments/fail-before-dispatch';
import { recordAnswer, releaseSpend, settleSpend, type Settlement } from '../domain/consumer-payments/settle';
import type { ConsumerPaymentSeams } from '../domain/consumer-payments/seams';
import type { AuditStep, SpendAnswer, SpendRefusalInfo, SpendRequest } from '../contracts/consumer-spend';
import { readSettings, effectiveSettings } from '../domain/tenancy/settings';
import { DispatchUncertain, type RailOutcome } from '../providers/rails/rail';
import { pixNotificationUrl, pixPsp, railProvider } from '../providers/rails/registry';
import type { ActivityDeps } from './deps';

export type DispatchResult =
  | { kind: 'settled'; settlement: Settlement }
  | { kind: 'processing'; providerPaymentId: string }
  | { kind: 'refused'; refusal: SpendRefusalInfo }
  | { kind: 'uncertain'; detail: string }
  | { kind: 'not_received' };

function fromOutcome(outcome: RailOutcome): DispatchResult {
  if (outcome.status === 'settled')
    return {
      kind: 'settled',
      settlement: {
        providerPaymentId: outcome.providerPaymentId,
        endToEndId: outcome.endToEndId,
        settledAt: outcome.settledAt,
        chargedMinor: null,
      },
    };
  if (outcome.status === 'processing')
    return { kind: 'processing', providerPaymentId: outcome.providerPaymentId };
  return {
    kind: 'refused',
    refusal: {
      status: 422,
      code: 'psp_refused',
      message: outcome.message,
      details: { reason: outcome.reason },
    },
  };
}

/** Pix only: the key must exist in DICT before any money is held. */
export async function lookupPayee(
  deps: ActivityDeps,
  req: SpendRequest,
): Promise<{ found: true; ownerName: string; ispb: string } | { found: false }> {
  try {
    const owner = await pixPsp(deps.config, req.environment).lookupKey(req.pix!.key);
    return owner ? { found: true, ownerName: owner.ownerName, ispb: owner.ispb } : { found: false };
  } catch (error) {
    if (error instanceof DispatchUncertain)
      throw ApplicationFailure.retryable(error.message, 'provider_unavailable');
    throw error;
  }
}

/** The mandate, caps, allowlists, policy and hold (domain/consumer-payments/authorize.ts), under the project's settings. */
export async function authorizeConsumer(
  deps: ActivityDeps,
  seams: ConsumerPaymentSeams,
  req: SpendRequest,
  workflowType: string,
): Promise<Authorization> {
  // Only a TED destination's allowlist reads the project's settings: a Pix spend has no read to make.
  const tedMerchantFallback =
    req.rail === 'ted' &&
    effectiveSettings(await readSettings(deps.db, req.orgId, req.projectId))
      .ted_merchant_allowlist_fallback === true;
  try {
    return await authorizeSpend(deps.db, seams, req, { tedMerchantFallback }, workflowType);
  } catch (error) {
    // A CHECK the authorizing writes trip trips again on every retry of the same writes: the attempt
    // ends now (as the other families' balance_constraint_violation does) instead of retrying for ever.
    if (error instanceof CheckIntegrityConstraintViolationError)
      throw ApplicationFailure.nonRetryable(
        `${error.message} (${error.constraint ?? 'unnamed'})`,
        'check_violation',
      );
    throw error;
  }
}

/** Sends the spend to its rail's provider under the attempt's dispatch key; the provider's silence is `uncertain`. */
export async function dispatchSpend(
  deps: ActivityDeps,
  input: { req: SpendRequest; sourceAccount: string | null; fundingSourceId?: string | null },
): Promise<DispatchResult> {
  const { req } = input;
  try {
    const outcome = await railProvider(deps.config, req.rail, req.environment).dispatch({
      idempotencyKey: req.dispatchKey,
      reference: req.attemptId,
      amountMinor: BigInt(req.amountMinor),
      description: req.purpose,
      pix: req.pix
        ? {
            key: req.pix.key,
            txid: req.pix.txid,
            ...(input.fundingSourceId ? { fundingSourceId: input.fundingSourceId } : {}),
          }
        : undefined,
      ted: req.ted ? { sourceAccount: input.sourceAccount ?? '', ...req.ted } : undefined,
      notificationUrl: req.rail === 'pix' ? pixNotificationUrl(deps.config) : null,
    });
    return fromOutcome(outcome);
  } catch (error) {
    if (error instanceof DispatchUncertain) return { kind: 'uncertain', detail: error.message };
    throw error;
  }
}

/** Asks the provider what became of the attempt's dispatch key. */
export async function resolveDispatch(deps: ActivityDeps, req: SpendRequest): Promise<DispatchResult> {
  try {
    const outcome = await railProvider(deps.config, req.rail, req.environment).status(req.dispatchKey);
    return outcome ? fromOutcome(outcome) : { kind: 'not_received' };
  } catch (error) {
    if (error instanceof DispatchUncertain) return { kind: 'uncertain', detail: error.message };
    throw error;
  }
}

// The steps of consumerSpendAttempt, the workflow type from before the one engine (workflows/legacy):
// registered while attempts claimed under it may run.
export function consumerPaymentActivities(deps: ActivityDeps, seams: ConsumerPaymentSeams) {
  return {
    lookupPixPayee: (req: SpendRequest) => lookupPayee(deps, req),
    authorizeConsumerSpend: (req: SpendRequest) =>
      authorizeConsumer(deps, seams, req, 'consumerSpendAttempt'),
    /** Ends an attempt that broke before its dispatch: released, failed, stored. */
    async failConsumerSpendBeforeDispatch(input: {
      req: SpendRequest;
      reason: string;
      audit: AuditStep[];
    }): Promise<SpendAnswer> {
      return failBeforeDispatch(deps.db, seams, input.req, input);
    },
    dispatchConsumerSpend: (input: {
      req: SpendRequest;
      sourceAccount: string | null;
      fundingSourceId?: string | null;
    }) => dispatchSpend(deps, input),
    resolveConsumerDispatch: (req: SpendRequest) => resolveDispatch(deps, req),
    async settleConsumerSpend(input: {
      req: SpendRequest;
      terms: TermsSummary;
      holdId: string;
      settlement: Settlement;
      audit: AuditStep[];
    }): Promise<SpendAnswer> {
      return settleSpend(deps.db, seams, deps.config.encryptionKeys, input.req, input);
    },
    async releaseConsumerSpend(input: {
      req: SpendRequest;
      terms: TermsSummary;
      refusal: SpendRefusalInfo;
      audit: AuditStep[];
    }): Promise<SpendAnswer> {
      return releaseSpend(deps.db, seams, input.req, input);
    },
    async recordConsumerSpendAnswer(input: {
      req: SpendRequest;
      answer: SpendAnswer;
      consumerId: string | null;
      approvalId: string | null;
    }): Promise<void> {
      await recordAnswer(deps.db, input.req, input.answer, {
        consumerId: input.consumerId,
        approvalId: input.approvalId,
      });
    },
  };
}
