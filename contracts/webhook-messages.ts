// Messages of the delivery workflow, shared by the workflow and the code that starts or wakes it:
// its input, what one attempt reports, the reactivation signal and the attempt-now update.
import { defineSignal, defineUpdate } from '@temporalio/workflow';

export interface DeliveryChainInput {
  orgId: string;
  projectId: string;
  environment: 'live' | 'test';
  triggerId: string;
  eventId: string;
  eventType: string;
  /** The chain's first delivery id; names the workflow. */
  chainId: string;
  /** The attempt to make first (1 for a new chain; later when the sweep restarts a lost chain). */
  attempt: number;
  /** Waits between attempts in ms, pinned when the chain starts so a config change never alters a running chain. */
  retrySchedule: number[];
  /** How long an attempt waits for its inactive endpoint before it is dead-lettered. */
  holdLimitMs: number;
  /** The backoff before `attempt`, when the attempt before it was made outside the workflow (the dispatcher's first). */
  firstWaitMs?: number;
}

export type AttemptResult =
  | { kind: 'delivered'; deliveryId: string; attempt: number; responseStatus: number | null }
  | { kind: 'retry'; deliveryId: string; attempt: number; retryInMs: number; error: string | null }
  | { kind: 'dead'; deliveryId: string; attempt: number; error: string | null }
  /** The endpoint is not active: the attempt waits, pending, until it is reactivated. */
  | { kind: 'held'; deliveryId: string; attempt: number }
  /** The endpoint (and with it the delivery row) was deleted. */
  | { kind: 'abandoned'; attempt: number };

export interface DeliveryChainResult {
  outcome: 'delivered' | 'dead' | 'abandoned';
  attempts: number;
}

/** The endpoint became active again: a held attempt goes out now. Ignored while backing off. */
export const endpointReactivatedSignal = defineSignal('endpointReactivated');

/** Make the pending attempt now (retry-pending) and answer with its result. */
export const attemptNowUpdate = defineUpdate<AttemptResult>('attemptNow');
