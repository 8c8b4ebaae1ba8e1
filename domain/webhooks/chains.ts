// Starts, wakes and hurries delivery-chain workflows from outside them (the dispatcher, the sweep and
// the API). The workflow id is `delivery/<chain id>`, so starting a chain twice finds the running one.
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { WebhookSettings } from '../../runtime/config';
import { SEARCH_ATTRIBUTES } from '../../temporal-dev/search-attributes';
import { workflowIds } from '../../workflows/ids';
import { attemptNowUpdate, endpointReactivatedSignal, type AttemptResult, type DeliveryChainInput } from '../../workflows/webhook-messages';
import type { webhookDelivery } from '../../workflows/webhook-delivery';
import type { ChainRef } from './deliveries';

export interface ChainRuntime {
  client: Client;
  taskQueue: string;
  settings: WebhookSettings;
  /** True only when the client shares its NativeConnection with a worker on the task queue (the worker process). */
  eagerStart?: boolean;
}

function chainInput(runtime: ChainRuntime, ref: ChainRef, firstWaitMs: number): DeliveryChainInput {
  return {
    orgId: ref.org_id,
    projectId: ref.project_id,
    environment: ref.environment,
    triggerId: ref.trigger_id,
    eventId: ref.event_id,
    eventType: ref.event_type,
    chainId: ref.chain_id.toString(),
    attempt: ref.attempt,
    retrySchedule: runtime.settings.retrySchedule,
    holdLimitMs: runtime.settings.holdLimitMs,
    ...(firstWaitMs > 0 ? { firstWaitMs } : {}),
  };
}

function startOptions(runtime: ChainRuntime, ref: ChainRef, firstWaitMs = 0) {
  return {
    taskQueue: runtime.taskQueue,
    workflowId: workflowIds.delivery(ref.chain_id.toString()),
    args: [chainInput(runtime, ref, firstWaitMs)] as [DeliveryChainInput],
    typedSearchAttributes: [
      { key: SEARCH_ATTRIBUTES.OrgId, value: ref.org_id },
      { key: SEARCH_ATTRIBUTES.ProjectId, value: ref.project_id },
      { key: SEARCH_ATTRIBUTES.Environment, value: ref.environment },
      { key: SEARCH_ATTRIBUTES.EventType, value: ref.event_type },
    ],
  };
}

/**
 * Starts a chain's workflow at `ref.attempt`, after `firstWaitMs` when an attempt made outside the workflow
 * (the dispatcher's first one) already failed; a chain already running is left as it is.
 */
export async function startChain(runtime: ChainRuntime, ref: ChainRef, firstWaitMs = 0): Promise<void> {
  try {
    // Eager start hands the first workflow task straight to a worker sharing the client's connection
    // (the dispatcher in the worker process), skipping a poll round trip; elsewhere it is a normal start.
    await runtime.client.workflow.start<typeof webhookDelivery>('webhookDelivery', { ...startOptions(runtime, ref, firstWaitMs), requestEagerStart: runtime.eagerStart === true });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/** Wakes a chain held by an inactive endpoint, starting its workflow again if it was lost. */
export async function wakeChain(runtime: ChainRuntime, ref: ChainRef): Promise<void> {
  await runtime.client.workflow.signalWithStart<typeof webhookDelivery, []>('webhookDelivery', {
    ...startOptions(runtime, ref),
    signal: endpointReactivatedSignal,
    signalArgs: [],
  });
}

/** Makes the chain's pending attempt now and answers with its result (retry-pending). */
export async function attemptChainNow(runtime: ChainRuntime, ref: ChainRef): Promise<AttemptResult> {
  const workflowId = workflowIds.delivery(ref.chain_id.toString());
  try {
    return await runtime.client.workflow.getHandle(workflowId).executeUpdate(attemptNowUpdate);
  } catch (error) {
    // A lost or finished run cannot take the update: start the chain again at its pending attempt and ask once more.
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    await wakeChain(runtime, ref);
    return runtime.client.workflow.getHandle(workflowId).executeUpdate(attemptNowUpdate);
  }
}

/** Runs `task` over `items`, at most `limit` at a time. */
export async function eachLimited<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<PromiseSettledResult<R>[]> {
  const results: PromiseSettledResult<R>[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      try {
        results[index] = { status: 'fulfilled', value: await task(items[index]) };
      } catch (reason) {
        results[index] = { status: 'rejected', reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
