// Activities of the spend attempt: thin calls into domain/spend and the payment provider adapter (or, for a
// catalog money tool, the provider's tool through the project's connection).
import { ApplicationFailure, Context } from '@temporalio/activity';
import { ApiError } from '../domain/errors';
import { finishAttempt } from '../domain/spend/attempts';
import { authorizeSpend } from '../domain/spend/authorize';
import { debitSpend, releaseSpend, releaseSpendIfHeld } from '../domain/spend/settle';
import type { Authorization, Dispatch, DispatchStatus, SpendInput, SpendOutcome } from '../contracts/spend';
import { EndpointNotConfigured, requireEndpoint } from '../domain/providers/endpoints';
import { httpPaymentProvider } from '../providers/payments/http-adapter';
import { ProviderUnavailable, type PaymentProvider } from '../providers/payments/provider';
import { moneyToolStatus, sendMoneyTool, type MoneyToolCall } from '../providers/tools/money';
import type { ActivityDeps } from './deps';

/** Business refusals from the domain become non-retryable failures typed by their code. */
async function refusalsAsFailures<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ApiError && error.code !== 'ledger_conflict')
      throw ApplicationFailure.nonRetryable(error.message, error.code, error.details);
    throw error; // ledger_conflict and infrastructure errors are retried
  }
}

/** The provider idempotency key of an attempt: every send and status call of it uses this one. */
const dispatchKey = (input: SpendInput): string => `spend/${input.orgId}/${input.attemptId}`;

/** The provider tool call of an attempt that pays through a catalog money tool. */
const moneyToolCall = (input: SpendInput): MoneyToolCall => ({
  tenant: { orgId: input.orgId, projectId: input.projectId },
  environment: input.environment,
  call: input.providerTool!,
  idempotencyKey: dispatchKey(input),
});

/** The payment provider of the attempt's environment: the sandbox for test keys, the live one for live keys. */
export function paymentProvider(deps: ActivityDeps, environment: SpendInput['environment']): PaymentProvider {
  const baseUrl = requireEndpoint(deps.config, 'payments', environment);
  return httpPaymentProvider({ baseUrl, timeoutMs: deps.config.providerTimeoutMs });
}

export function spendActivities(deps: ActivityDeps) {
  return {
    async authorizeSpend(input: SpendInput): Promise<Authorization> {
      return refusalsAsFailures(() => authorizeSpend(deps.db, input));
    },
    async dispatchPayment(input: SpendInput): Promise<Dispatch> {
      // Heartbeats let the server notice a dead worker within the heartbeat timeout and retry elsewhere.
      const context = Context.current();
      const beat = setInterval(() => context.heartbeat(), 500);
      try {
        // A catalog money tool is sent through the project's connection under the same key.
        if (input.providerTool) return await sendMoneyTool(deps, moneyToolCall(input));
        return await paymentProvider(deps, input.environment).pay(
          {
            idempotencyKey: dispatchKey(input),
            reference: input.attemptId,
            amountMinor: BigInt(input.amountMinor),
            currency: input.currency,
            recipient: input.recipient,
            description: input.description,
            method: input.preferredMethod,
            metadata: { org_id: input.orgId, project_id: input.projectId, attempt_id: input.attemptId },
          },
          Context.current().cancellationSignal,
        );
      } catch (error) {
        // Nothing was sent anywhere: a refusal, so the hold is released rather than left waiting.
        if (error instanceof EndpointNotConfigured)
          return { status: 'refused', code: 'provider_not_configured', message: error.message };
        if (error instanceof ProviderUnavailable)
          throw ApplicationFailure.retryable(error.message, 'provider_unavailable', {
            status: error.status ?? null,
          });
        throw error;
      } finally {
        clearInterval(beat);
      }
    },
    /** Asks the provider what became of the attempt's idempotency key; never throws for provider trouble. */
    async paymentStatus(input: SpendInput): Promise<DispatchStatus> {
      try {
        if (input.providerTool)
          return (await moneyToolStatus(deps, moneyToolCall(input))) ?? { status: 'not_received' };
        const found = await paymentProvider(deps, input.environment).status(
          dispatchKey(input),
          Context.current().cancellationSignal,
        );
        return found ?? { status: 'not_received' };
      } catch (error) {
        // An endpoint unset since the dispatch cannot say what became of it: the money stays held.
        if (error instanceof ProviderUnavailable || error instanceof EndpointNotConfigured)
          return { status: 'uncertain', message: error.message };
        throw error;
      }
    },
    async settleSpend({
      input,
      paymentId,
    }: {
      input: SpendInput;
      paymentId: string;
    }): Promise<{ debitId: string }> {
      return refusalsAsFailures(async () => ({ debitId: await debitSpend(deps.db, input, paymentId) }));
    },
    async releaseSpend(input: SpendInput): Promise<{ releaseId: string }> {
      return refusalsAsFailures(async () => ({ releaseId: await releaseSpend(deps.db, input) }));
    },
    async releaseSpendIfHeld(input: SpendInput): Promise<{ releaseId: string | null }> {
      return refusalsAsFailures(async () => ({ releaseId: await releaseSpendIfHeld(deps.db, input) }));
    },
    async finishSpend({ input, outcome }: { input: SpendInput; outcome: SpendOutcome }): Promise<void> {
      await finishAttempt(
        deps.db,
        { orgId: input.orgId, projectId: input.projectId, environment: input.environment },
        input.attemptId,
        outcome,
        input.approvalId ?? null,
      );
    },
  };
}
