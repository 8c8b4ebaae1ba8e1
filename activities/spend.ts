// Activities of the spend-attempt workflow type from before the one engine (workflows/legacy/): thin calls
// into domain/spend and the wallet execute family's provider calls, kept while attempts claimed under that
// type may still run or replay.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { finishAttempt } from '../domain/attempts/store';
import { authorizeSpend } from '../domain/spend/authorize';
import { debitSpend, releaseSpend, releaseSpendIfHeld } from '../domain/spend/settle';
import type { Authorization, Dispatch, DispatchStatus, SpendInput, SpendOutcome } from '../contracts/spend';
import { EndpointNotConfigured } from '../domain/providers/endpoints';
import { ProviderUnavailable } from '../providers/payments/provider';
import { moneyToolStatus, sendMoneyTool } from '../providers/tools/money';
import { dispatchKey, moneyToolCall, paymentProvider } from './attempts/families/wallet-execute';
import { refusalsAsFailures } from './attempts';
import type { ActivityDeps } from './deps';

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
        {
          family: 'wallet_execute',
          attemptId: input.attemptId,
          approvalId: input.approvalId ?? null,
          status: outcome.status === 'requires-approval' ? 'requires_approval' : outcome.status,
          reply: { httpStatus: outcome.httpStatus, body: outcome.body },
          providerPaymentId: outcome.providerPaymentId,
        },
      );
    },
  };
}
