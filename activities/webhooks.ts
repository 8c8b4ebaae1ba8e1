// Delivery activities: make one attempt of a chain (load, sign, POST, record) and dead-letter an
// attempt that waited too long for its endpoint. Idempotent: a retried activity whose attempt was
// already recorded answers with that record instead of sending again.
import type { KeyRing } from '../domain/crypto/secret-box';
import { eventPayload } from '../domain/events/payload';
import { judgeAttempt } from '../domain/webhooks/attempt-outcome';
import {
  expireHeld,
  loadAttempt,
  markHeld,
  recordAttempt,
  recordDelivered,
  type AttemptContext,
  type AttemptRecord,
  type ChainKey,
} from '../domain/webhooks/attempts';
import { openSigningSecret } from '../domain/webhooks/endpoints';
import { nextRetryDelay, parseRetryAfter } from '../domain/webhooks/retry-schedule';
import { signedHeaders } from '../domain/webhooks/signing';
import { checkWebhookUrl } from '../domain/webhooks/url-policy';
import { sendWebhook } from '../providers/webhooks/sender';
import type { Config } from '../runtime/config';
import { sqlState, type DatabasePool } from '../runtime/database';
import { batcher } from '../runtime/batcher';
import type { Logger } from '../runtime/logger';
import type { AttemptResult } from '../contracts/webhook-messages';
import { countDelivery } from '../runtime/telemetry/metrics';

/** Bytes of request and response bodies kept on a delivery row. */
export const KEPT_BODY_BYTES = 4096;
const USER_AGENT = 'AgentPaymentsGateway-Webhooks/0.3';

function truncate(text: string): { text: string; truncated: boolean } {
  const bytes = Buffer.from(text);
  return bytes.length <= KEPT_BODY_BYTES
    ? { text, truncated: false }
    : { text: bytes.subarray(0, KEPT_BODY_BYTES).toString('utf8'), truncated: true };
}

/** The result a recorded attempt stands for, so a retried activity answers without sending twice. */
function recordedResult(context: AttemptContext, attempt: number): AttemptResult {
  const deliveryId = context.delivery_id.toString();
  switch (context.status) {
    case 'delivered':
      return { kind: 'delivered', deliveryId, attempt, responseStatus: context.response_status };
    case 'dead':
      return { kind: 'dead', deliveryId, attempt, error: context.error };
    case 'failed':
      return {
        kind: 'retry',
        deliveryId,
        attempt,
        retryInMs: context.next_due_in_ms ?? 0,
        error: context.error,
      };
    case 'pending':
      return { kind: 'held', deliveryId, attempt };
  }
}

/** PostgreSQL's deadlock_detected: two batches met on endpoint rows in opposite orders; the whole statement rolled back. */
const DEADLOCK = '40P01';

/**
 * Makes attempts of a chain: `attemptDelivery` loads the attempt first (the workflow's activity),
 * `attemptLoaded` starts from a context already read (the dispatcher's first attempts, read with the fan-out).
 * Delivered attempts are recorded in batches (group commit); every other outcome in its own transaction.
 */
export function deliveryAttempts(
  deps: { db: DatabasePool; log: Logger; config: Config },
  ring: KeyRing = deps.config.encryptionKeys,
) {
  const { db, log, config } = deps;
  const recordOneDelivered = batcher(async (items: Array<{ key: ChainKey; record: AttemptRecord }>) => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await recordDelivered(db, items);
      } catch (error) {
        if (sqlState(error) !== DEADLOCK || attempt === 3) throw error;
      }
    }
  });
  // A 2xx never pauses its endpoint, so a delivered attempt needs only its row and the counters.
  const record = (key: ChainKey, outcome: AttemptRecord): Promise<boolean> =>
    outcome.status === 'delivered'
      ? recordOneDelivered({ key, record: outcome })
      : recordAttempt(db, key, outcome);

  async function attemptLoaded(
    key: ChainKey,
    context: AttemptContext,
    retrySchedule: number[],
  ): Promise<AttemptResult> {
    if (context.status !== 'pending') return recordedResult(context, key.attempt);
    const deliveryId = context.delivery_id.toString();
    if (context.endpoint_status !== 'active') {
      await markHeld(db, key);
      return { kind: 'held', deliveryId, attempt: key.attempt };
    }

    const body = JSON.stringify(
      eventPayload({
        id: context.event_id,
        type: context.event_type,
        created_at: context.event_created_at,
        project_id: context.project_id,
        environment: context.environment,
        data: context.event_data,
      }),
    );
    const attemptedAt = new Date();
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      ...signedHeaders(
        context.sealed_secret ? openSigningSecret(ring, context.trigger_id, context.sealed_secret) : null,
        context.event_id,
        Math.floor(attemptedAt.getTime() / 1000),
        body,
      ),
    };
    // The URL passed its check when it was saved; it is checked again (and in live every resolved
    // address too) because policy and DNS can both change after that.
    const live = context.environment === 'live';
    const sent = checkWebhookUrl(context.webhook_url, context.environment).ok
      ? await sendWebhook({
          url: context.webhook_url,
          headers,
          body,
          timeoutMs: config.webhooks.timeoutMs,
          refusePrivateAddresses: live,
          keepBytes: KEPT_BODY_BYTES,
        })
      : { answer: null, transportError: 'address_refused' as const, durationMs: 0 };
    const verdict = judgeAttempt(sent.answer, sent.transportError);
    const retryAfter = verdict.honourRetryAfter
      ? parseRetryAfter(sent.answer?.headers['retry-after'], attemptedAt.getTime())
      : null;
    const retryInMs = verdict.delivered ? null : nextRetryDelay(retrySchedule, key.attempt, retryAfter);
    const status = verdict.delivered ? 'delivered' : retryInMs === null ? 'dead' : 'failed';
    const requestBody = truncate(body);
    const recorded = await record(key, {
      status,
      attemptedAt: attemptedAt.toISOString(),
      durationMs: sent.durationMs,
      requestUrl: context.webhook_url,
      requestHeaders: headers,
      requestBody: requestBody.text,
      requestBodyTruncated: requestBody.truncated,
      responseStatus: sent.answer?.status ?? null,
      responseHeaders: sent.answer?.headers ?? null,
      responseBody: sent.answer?.body ?? null,
      responseBodyTruncated: sent.answer?.truncated ?? false,
      error: verdict.error,
      retryInMs,
      pauseEndpoint: verdict.pauseEndpoint,
    });
    if (!recorded) {
      const again = await loadAttempt(db, key);
      return again ? recordedResult(again, key.attempt) : { kind: 'abandoned', attempt: key.attempt };
    }
    countDelivery(status, sent.answer ? sent.durationMs / 1000 : null);
    if (!verdict.delivered)
      log.info('webhook attempt failed', {
        delivery_id: deliveryId,
        attempt: key.attempt,
        error: verdict.error,
        status,
      });
    if (status === 'delivered')
      return {
        kind: 'delivered',
        deliveryId,
        attempt: key.attempt,
        responseStatus: sent.answer?.status ?? null,
      };
    if (status === 'dead') return { kind: 'dead', deliveryId, attempt: key.attempt, error: verdict.error };
    return { kind: 'retry', deliveryId, attempt: key.attempt, retryInMs: retryInMs!, error: verdict.error };
  }

  async function attemptDelivery(input: ChainKey & { retrySchedule: number[] }): Promise<AttemptResult> {
    const key: ChainKey = {
      orgId: input.orgId,
      projectId: input.projectId,
      chainId: input.chainId,
      attempt: input.attempt,
    };
    const context = await loadAttempt(db, key);
    if (!context) return { kind: 'abandoned', attempt: input.attempt };
    return attemptLoaded(key, context, input.retrySchedule);
  }

  return { attemptDelivery, attemptLoaded };
}

export function webhookActivities(
  deps: { db: DatabasePool; log: Logger; config: Config },
  ring: KeyRing = deps.config.encryptionKeys,
) {
  const { attemptDelivery } = deliveryAttempts(deps, ring);

  async function expireHeldDelivery(input: ChainKey): Promise<boolean> {
    return expireHeld(deps.db, input);
  }

  return { attemptDelivery, expireHeldDelivery };
}
