// Wallet execute as a family of the engine: the policy gate and hold of domain/spend, the payment provider
// (or, for a catalog money tool, the provider's tool through the project's connection) under the attempt's
// idempotency key, whose status answers an unknown send, then the debit or the release.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { appendStep, type AuditStep } from '../../../contracts/attempt-audit';
import type { Sent } from '../../../contracts/attempt';
import type { SpendInput } from '../../../contracts/spend';
import { EndpointNotConfigured, requireEndpoint } from '../../../domain/providers/endpoints';
import { authorizeSpend } from '../../../domain/spend/authorize';
import { debitSpend, releaseSpend, releaseSpendIfHeld } from '../../../domain/spend/settle';
import { httpPaymentProvider } from '../../../providers/payments/http-adapter';
import { ProviderUnavailable, type PaymentProvider } from '../../../providers/payments/provider';
import { moneyToolStatus, sendMoneyTool, type MoneyToolCall } from '../../../providers/tools/money';
import type { ActivityDeps } from '../../deps';
import type { AttemptFamilySteps } from '../family';

/** The provider idempotency key of an attempt: every send and status call of it uses this one. */
export const dispatchKey = (input: SpendInput): string => `spend/${input.orgId}/${input.attemptId}`;

/** The provider tool call of an attempt that pays through a catalog money tool. */
export const moneyToolCall = (input: SpendInput): MoneyToolCall => ({
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

const signal = (): AbortSignal | undefined => Context.current().cancellationSignal;

function steps(): [AuditStep[], (name: string, status: AuditStep['status'], detail: string) => void] {
  const list: AuditStep[] = [];
  return [list, (name, status, detail) => appendStep(list, name, status, detail)];
}

export const walletExecute: AttemptFamilySteps<'wallet_execute'> = {
  async authorize(deps, input) {
    const auth = await authorizeSpend(deps.db, input);
    const [audit, step] = steps();
    const allowed = input.approvalId ? `allowed after approval ${input.approvalId}` : 'allowed';
    switch (auth.kind) {
      case 'wallet_not_active':
        step('policy', 'skip', 'not evaluated');
        step('hold', 'fail', `wallet_not_active: the wallet is ${auth.status}`);
        return { kind: 'refused', insufficientFunds: false, failure: null, steps: audit };
      case 'denied':
        step('policy', 'fail', `${auth.denial.reason} by ${auth.denial.ruleType} rule ${auth.denial.ruleId}`);
        step('hold', 'skip', 'denied before any hold');
        return { kind: 'denied', denial: auth.denial, steps: audit };
      case 'requires_approval':
        step('policy', 'fail', `approval_required by rule ${auth.denial.ruleId}`);
        step('approval', 'pass', `held as ${auth.approvalId} until ${auth.expiresAt}`);
        step('hold', 'skip', 'no funds held while waiting for a decision');
        return {
          kind: 'requires_approval',
          denial: auth.denial,
          approvalId: auth.approvalId,
          expiresAt: auth.expiresAt,
          steps: audit,
        };
      case 'insufficient_funds':
        step('policy', 'pass', allowed);
        step('hold', 'fail', `insufficient funds: ${auth.available} available`);
        return { kind: 'refused', insufficientFunds: true, failure: null, steps: audit };
      case 'held':
        step('policy', 'pass', !input.approvalId && auth.ruleId ? `allowed by rule ${auth.ruleId}` : allowed);
        step('hold', 'pass', `held ${input.amountMinor} ${input.currency} as ${auth.holdId}`);
        // An earlier run's hold: the engine looks its send up before sending anything.
        return {
          kind: 'held',
          holdId: auth.holdId,
          steps: audit,
          ...(auth.resumed ? { resumed: true } : {}),
        };
    }
  },

  async send(deps, input): Promise<Sent> {
    try {
      // A catalog money tool is sent through the project's connection under the same key.
      const answer = input.providerTool
        ? await sendMoneyTool(deps, moneyToolCall(input))
        : await paymentProvider(deps, input.environment).pay(
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
            signal(),
          );
      if (answer.status === 'succeeded')
        return { status: 'succeeded', paymentId: answer.paymentId, output: null };
      if (answer.status === 'refused') return { ...answer, output: null };
      return { status: 'unknown', message: answer.message };
    } catch (error) {
      // Nothing was sent anywhere: a refusal, so the hold is released rather than left waiting.
      if (error instanceof EndpointNotConfigured)
        return { status: 'refused', code: 'provider_not_configured', message: error.message, output: null };
      // Retried under the same key; when the retries run out the engine asks for the key's status.
      if (error instanceof ProviderUnavailable)
        throw ApplicationFailure.retryable(error.message, 'provider_unavailable', {
          status: error.status ?? null,
        });
      throw error;
    }
  },

  async lookup(deps, input, unknown) {
    const [audit, step] = steps();
    if (unknown.round === 0) step('dispatch', 'fail', `no answer: ${unknown.message}; asking the provider`);
    let found;
    try {
      found = input.providerTool
        ? await moneyToolStatus(deps, moneyToolCall(input))
        : await paymentProvider(deps, input.environment).status(dispatchKey(input), signal());
    } catch (error) {
      // An endpoint unset since the dispatch cannot say what became of it: the money stays held.
      if (!(error instanceof ProviderUnavailable || error instanceof EndpointNotConfigured)) throw error;
      found = { status: 'uncertain' as const, message: error.message };
    }
    if (found === null || found.status === 'not_received')
      return {
        sent: {
          status: 'refused',
          code: 'provider_unreachable',
          message: `the provider never received the payment (${unknown.message})`,
          output: null,
        },
        steps: audit,
      };
    if (found.status === 'succeeded')
      return { sent: { status: 'succeeded', paymentId: found.paymentId, output: null }, steps: audit };
    if (found.status === 'refused') return { sent: { ...found, output: null }, steps: audit };
    if (unknown.round === 0)
      step('dispatch', 'fail', `outcome unknown: ${found.message}; the hold stays until the provider says`);
    return { sent: { status: 'uncertain', message: found.message }, steps: audit };
  },

  async settle(deps, { input, sent }) {
    const [audit, step] = steps();
    const paymentId = sent.paymentId ?? `resolved:${input.attemptId}`;
    step('dispatch', 'pass', `provider payment ${paymentId}`);
    const debitId = await debitSpend(deps.db, input, paymentId);
    step('debit', 'pass', `debited entry ${debitId}`);
    step('release', 'skip', 'hold consumed by the debit');
    return { debitId, paymentId, output: null, split: null, steps: audit };
  },

  async release(deps, { input, sent }) {
    const [audit, step] = steps();
    const unreachable = sent.code === 'provider_unreachable';
    step('dispatch', 'fail', unreachable ? `provider unreachable: ${sent.message}` : `refused: ${sent.code}`);
    step('debit', 'skip', 'nothing to debit');
    const releaseId = await releaseSpend(deps.db, input);
    step('release', 'pass', `released entry ${releaseId}`);
    return { releaseId, failure: { code: sent.code, message: sent.message }, output: null, steps: audit };
  },

  async releaseIfHeld(deps, input, message) {
    const [audit, step] = steps();
    const releaseId = await releaseSpendIfHeld(deps.db, input);
    step('hold', 'fail', `the attempt broke before its dispatch: ${message}`);
    if (releaseId) step('release', 'pass', `released entry ${releaseId}`);
    return { releaseId, steps: audit };
  },
};
