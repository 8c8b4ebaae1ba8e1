// Consumer payments: mandate-bound spends on Pix and TED, answered synchronously (execute), streamed as
// server-sent events (execute-stream), or on a registered mandate; and the Pix PSP settlement webhook.
import { findByDispatchKey } from '../../domain/consumer-payments/attempts';
import { ensureSubAccount } from '../../domain/consumer-payments/sub-accounts';
import { wiredSeams } from '../../domain/consumer-payments/wiring';
import { getWallet, walletBalances } from '../../domain/wallets/wallets';
import type { SpendAnswer } from '../../contracts/consumer-spend';
import { ErrorEnvelope } from '../../schema/http/common';
import { PolicyDenial } from '../../schema/http/policies';
import { Wallet } from '../../schema/http/wallets';
import { presentWallet } from '../presenters/wallet';
import {
  MandateSpendBody,
  SpendBody,
  SpendOutcome,
  SpendRefusal,
  type SpendBodyValues,
} from '../../schema/http/consumer-payments';
import { pixPaymentById } from '../../providers/pix/psp-adapter';
import { ATTEMPT_WORKFLOW } from '../../contracts/attempt';
import { noteAttemptSettlement } from '../../orchestration/attempts';
import { noteLegacyConsumerSpendSettlement } from '../../orchestration/legacy-attempts';
import {
  awaitAnswer,
  prepareSpend,
  spendProgress,
  startSpend,
  type SpendRun,
} from '../consumer-spend-runner';
import { executeConsumerSpend } from '../flows/consumer-spend';
import type { AppDeps } from '../deps';
import type { Principal } from '../principal';
import { route, type AnyRoute, type Reply } from '../route';
import { answerOwnRefusals } from '../validation';
import type { ApiError } from '../../domain/errors';
import { checkApproval } from '../../domain/consumer-payments/prepare';
import { openEventStream } from '../sse/event-stream';

const tags = ['Consumer payments'];

/** A policy rule's refusal of a spend: the spec's flat denial body with the attempt's fields. */
const SpendPolicyDenial = {
  allOf: [
    PolicyDenial,
    {
      type: 'object',
      properties: {
        attempt_id: { type: 'string' },
        request_id: { type: 'string' },
        idempotent_replay: { type: 'boolean' },
        audit: { type: 'array' },
      },
    },
  ],
};

const responses = {
  200: {
    description:
      'SpendOutcome (`completed`); a replay of a settled attempt answers it verbatim with `idempotent_replay: true`',
    schema: SpendOutcome,
  },
  400: {
    description:
      '`invalid_body`, `invalid_approval_hash`, `invalid_receipt_timestamp`, `actor_consumer_mismatch`, `attempt_id_required` (TED), `invalid_ted_payee`, `invalid_ted_destination`',
    schema: ErrorEnvelope,
  },
  403: {
    description:
      "`withdrawal_pin`, `approval_required` (details.approval_id; the per-transaction cap), `currency_not_authorized`, `merchant_not_allowed`, mandate refusals (`mandate_signature_invalid`, `agent_mismatch`); a policy rule's denial or hold is the flat body `{reason, ruleType, ruleId}` (plus `approval_id` and `expires_at` when an approval was created) with `attempt_id`, `audit` and `idempotent_replay`",
    schema: { anyOf: [SpendRefusal, SpendPolicyDenial] },
  },
  409: {
    description: '`attempt_id_conflict`, `attempt_in_progress` (Retry-After), mandate state refusals',
    schema: ErrorEnvelope,
  },
  422: {
    description:
      '`carrier_*` (bad BR Code), `invalid_pix_key`, `pix_key_not_found`, `per_tx_cap_exceeded` (details amount_minor, per_tx_cap_minor, currency), `cumulative_cap_exceeded`, `periodic_cap_exceeded`, `purpose_mismatch`, `insufficient_funds`, `psp_refused`, `session_not_found`',
    schema: SpendRefusal,
  },
  502: {
    description:
      "`psp_dispatch_uncertain` (present the same attempt_id again), `psp_not_dispatched` (also when no provider of the rail is configured for the key's environment; nothing was held)",
    schema: SpendRefusal,
  },
  500: {
    description:
      '`attempt_failed`: the attempt broke before its dispatch; nothing was sent and nothing stays held (present it again for the same answer, pay under a new attempt_id)',
    schema: SpendRefusal,
  },
};

/** Streams each audit step as it happens (polling the workflow's progress), then the outcome. */
function stream(deps: AppDeps, run: SpendRun): Reply {
  const events = openEventStream(deps.config.sse);
  const sendOutcome = (answer: SpendAnswer, replay: boolean) =>
    events.finish('outcome', { http_status: answer.httpStatus, replay, body: answer.body });
  if (run.kind === 'replay') {
    const body = JSON.parse(run.json.toString('utf8')) as Record<string, unknown>;
    for (const step of (body.audit as unknown[] | undefined) ?? []) events.send('audit', step);
    events.finish('outcome', { http_status: run.status, replay: true, body });
  } else {
    let sent = 0;
    const flush = (audit: unknown[]) => {
      for (; sent < audit.length; sent++) events.send('audit', audit[sent]);
    };
    let done = false;
    const poll = async () => {
      while (!done && !events.closed()) {
        try {
          const progress = await spendProgress(deps, run);
          if (!done) flush(progress.audit);
        } catch {
          // Not started yet, or already closed: the answer settles it either way.
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    void poll();
    awaitAnswer(deps, run)
      .then((answer) => {
        done = true;
        flush((answer.body.audit as unknown[] | undefined) ?? []);
        sendOutcome(answer, answer.body.idempotent_replay === true);
      })
      .catch((error: Error & { status?: number; code?: string }) => {
        done = true;
        events.finish('error', {
          http_status: error.status ?? 500,
          body: { error: { code: error.code ?? 'internal_error', message: error.message } },
        });
      });
  }
  return {
    status: 200,
    body: events.stream,
    type: 'text/event-stream',
    headers: {
      'Cache-Control': 'no-cache, no-transform',
      'X-Accel-Buffering': 'no',
      Connection: 'keep-alive',
    },
  };
}

/** A malformed approval hash is the contract's `invalid_approval_hash`, checked once the rest of the body is valid. */
function approvalHashRefusal(error: ApiError, _ctx: unknown, input: { body: unknown }): never {
  return answerOwnRefusals(
    error,
    (issue) => /^\/approval\/(items|batch)_hash$/.test(issue.path) && issue.keyword === 'pattern',
    () => checkApproval((input.body as SpendBodyValues).approval),
  );
}

export const consumerPaymentRoutes: AnyRoute[] = [
  route<SpendBodyValues, unknown, Record<string, string>, 'key'>({
    method: 'post',
    path: '/v1/consumer-payments/execute',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'executeConsumerPayment',
    summary: 'Spend on a signed mandate over Pix or TED, answered when the attempt settles',
    description:
      'One durable spend attempt per `attempt_id` (workflow `consumer-spend/<org>/<attempt_id>`). TED is selected by `ted`. Without `attempt_id` the request is its own payment and is never replayed.',
    body: SpendBody,
    keepsFinalAnswers: true,
    onInputError: approvalHashRefusal,
    responses,
    async handler({ deps, principal, body, requestId }) {
      return executeConsumerSpend(deps, principal, body, body.mandate, requestId);
    },
  }),
  route<SpendBodyValues, unknown, Record<string, string>, 'key'>({
    method: 'post',
    path: '/v1/consumer-payments/execute-stream',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'executeConsumerPaymentStream',
    summary: 'The same spend, each audit step streamed as a server-sent event',
    description:
      'text/event-stream. Events: `audit` (one per step, as it happens: {timestamp, step, status, detail}), `heartbeat` every 15 s, then one terminal `outcome` ({http_status, replay, body}: the body execute would answer) or `error`; the stream closes 5 s after the terminal event. Refusals found before the attempt starts answer as plain JSON errors.',
    body: SpendBody,
    onInputError: approvalHashRefusal,
    responses: { ...responses, 200: { description: 'Server-sent events', contentType: 'text/event-stream' } },
    async handler({ deps, principal, body, requestId }) {
      const run = await startSpend(deps, await prepareSpend(deps, principal, body, body.mandate, requestId));
      return stream(deps, run);
    },
  }),
  route<SpendBodyValues, unknown, { id: string }, 'key'>({
    method: 'post',
    path: '/v1/consumers/mandates/:id/spend',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'spendOnMandate',
    summary: 'Spend on a registered mandate (same lifecycle as execute)',
    description:
      'The mandate comes from the path; the caller still presents its `signature` and `agent_id`, checked exactly as on execute.',
    body: MandateSpendBody,
    onInputError: approvalHashRefusal,
    responses,
    async handler({ deps, principal, body, params, requestId }) {
      const mandate = await wiredSeams(deps.config.encryptionKeys).mandates.registered(
        deps.db,
        principal,
        params.id,
      );
      return executeConsumerSpend(deps, principal, body, mandate, requestId);
    },
  }),
  route<unknown, unknown, { consumerId: string }, 'key'>({
    method: 'post',
    path: '/v1/consumers/:consumerId/sub-account',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'openConsumerSubAccount',
    summary: "Open (or read) the consumer's sub-account wallet",
    description:
      "The ledger wallet a consumer's spends hold, debit and release in, and TED money leaves from. A spend opens it on first use; opening it ahead lets test mode fund it with a `fund` ledger entry. Idempotent: 201 when opened now, 200 when it already existed.",
    responses: {
      200: { description: 'The existing sub-account wallet with its balances', schema: Wallet },
      201: { description: 'The sub-account wallet, opened now (BRL)', schema: Wallet },
      404: { description: '`not_found`: no such consumer in this project', schema: ErrorEnvelope },
    },
    async handler({ deps, principal, params }) {
      const scope = {
        orgId: principal.orgId,
        projectId: principal.projectId,
        environment: principal.environment,
      };
      const sub = await deps.db.transaction((tx) => ensureSubAccount(tx, scope, params.consumerId, 'BRL'));
      const wallet = await getWallet(deps.db, principal.orgId, principal.projectId, sub.wallet_id);
      return {
        status: sub.created ? 201 : 200,
        body: presentWallet(
          wallet,
          await walletBalances(deps.db, principal.orgId, principal.projectId, [wallet.id]),
        ),
      };
    },
  }),
  route<{ payment_id?: string }, unknown, Record<string, string>, 'public'>({
    method: 'post',
    path: '/v1/providers/pix-psp/webhooks',
    auth: 'public',
    scope: null,
    tags,
    undocumented: true,
    bodyOptional: true,
    operationId: 'pixPspWebhook',
    summary: 'Settlement notices from the Pix PSP',
    body: {
      type: 'object',
      properties: { payment_id: { type: 'string', maxLength: 200 } },
      additionalProperties: true,
    },
    responses: { 202: { description: 'Noted' } },
    async handler({ deps, body }) {
      // The notice is a hint: its body is never trusted; the PSP's own status API says what happened.
      if (!body.payment_id || !deps.config.providerUrls.pix_psp)
        return { status: 202, body: { received: true, matched: false } };
      const payment = await pixPaymentById(
        { baseUrl: deps.config.providerUrls.pix_psp, timeoutMs: deps.config.providerTimeoutMs },
        body.payment_id,
      );
      const attempt = payment ? await findByDispatchKey(deps.db, payment.idempotencyKey) : null;
      if (!attempt) return { status: 202, body: { received: true, matched: false } };
      // The notice reaches the attempt's workflow in its own type's words.
      const noted =
        attempt.workflow_type === ATTEMPT_WORKFLOW
          ? noteAttemptSettlement(deps.temporal, attempt.workflow_id)
          : noteLegacyConsumerSpendSettlement(deps.temporal, attempt.workflow_id);
      await noted.catch(() => undefined);
      return { status: 202, body: { received: true, matched: true } };
    },
  }),
];
