// Starts, wakes and hurries delivery-chain workflows from outside them (the dispatcher, the sweep and the
// API): the Temporal side of the webhooks area's ChainRuntime port (domain/webhooks/chains.ts). The workflow
// id is `delivery/<chain id>`, so starting a chain twice finds the running one.
import type { WebhookSettings } from '../runtime/config';
import type { ChainRef } from '../domain/webhooks/deliveries';
import type { ChainRuntime } from '../domain/webhooks/chains';
import { workflowIds } from '../contracts/workflow-ids';
import { searchAttributes } from '../contracts/search-attributes';
import {
  attemptNowUpdate,
  endpointReactivatedSignal,
  type AttemptResult,
  type DeliveryChainInput,
} from '../contracts/webhook-messages';
import type { webhookDelivery } from '../workflows/webhook-delivery';
import { isAlreadyStarted, isWorkflowMissing } from './errors';
import { signalWithStart, start, update, type Orchestrator } from './temporal';

export interface TemporalChainConfig extends Orchestrator {
  settings: WebhookSettings;
  /** True only when the client shares its NativeConnection with a worker on the task queue (the worker process). */
  eagerStart?: boolean;
}

function chainInput(runtime: TemporalChainConfig, ref: ChainRef, firstWaitMs: number): DeliveryChainInput {
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

function startOptions(runtime: TemporalChainConfig, ref: ChainRef, firstWaitMs = 0) {
  return {
    workflowId: workflowIds.delivery(ref.chain_id.toString()),
    args: [chainInput(runtime, ref, firstWaitMs)] as [DeliveryChainInput],
    typedSearchAttributes: searchAttributes({
      orgId: ref.org_id,
      projectId: ref.project_id,
      environment: ref.environment,
      eventType: ref.event_type,
    }),
  };
}

/**
 * Starts a chain's workflow at `ref.attempt`, after `firstWaitMs` when an attempt made outside the workflow
 * (the dispatcher's first one) already failed; a chain already running is left as it is.
 */
async function startChain(runtime: TemporalChainConfig, ref: ChainRef, firstWaitMs = 0): Promise<void> {
  try {
    // Eager start hands the first workflow task straight to a worker sharing the client's connection
    // (the dispatcher in the worker process), skipping a poll round trip; elsewhere it is a normal start.
    await start<typeof webhookDelivery>(runtime, 'webhookDelivery', {
      ...startOptions(runtime, ref, firstWaitMs),
      requestEagerStart: runtime.eagerStart === true,
    });
  } catch (error) {
    if (!isAlreadyStarted(error)) throw error;
  }
}

/** Wakes a chain held by an inactive endpoint, starting its workflow again if it was lost. */
async function wakeChain(runtime: TemporalChainConfig, ref: ChainRef): Promise<void> {
  await signalWithStart<typeof webhookDelivery, []>(runtime, 'webhookDelivery', {
    ...startOptions(runtime, ref),
    signal: endpointReactivatedSignal,
    signalArgs: [],
  });
}

/** Makes the chain's pending attempt now and answers with its result (retry-pending). */
async function attemptChainNow(runtime: TemporalChainConfig, ref: ChainRef): Promise<AttemptResult> {
  const workflowId = workflowIds.delivery(ref.chain_id.toString());
  try {
    return await update(runtime, workflowId, attemptNowUpdate);
  } catch (error) {
    // A lost or finished run cannot take the update: start the chain again at its pending attempt and ask once more.
    if (!isWorkflowMissing(error)) throw error;
    await wakeChain(runtime, ref);
    return update(runtime, workflowId, attemptNowUpdate);
  }
}

/** The chains port bound to Temporal. */
export function temporalChains(config: TemporalChainConfig): ChainRuntime {
  return {
    settings: config.settings,
    startChain: (ref, firstWaitMs = 0) => startChain(config, ref, firstWaitMs),
    wakeChain: (ref) => wakeChain(config, ref),
    attemptChainNow: (ref) => attemptChainNow(config, ref),
  };
}
