// The delivery chains' workflows as the webhooks area sees them: a port (start a chain, wake a held one,
// make its pending attempt now) that orchestration/webhook-chains.ts binds to Temporal, so this area holds
// rules and SQL and never the Temporal client.
import type { WebhookSettings } from '../../runtime/config';
import type { AttemptResult } from '../../contracts/webhook-messages';
import type { ChainRef } from './deliveries';

export interface ChainRuntime {
  settings: WebhookSettings;
  /**
   * Starts a chain's workflow at `ref.attempt`, after `firstWaitMs` when an attempt made outside the workflow
   * (the dispatcher's first one) already failed; a chain already running is left as it is.
   */
  startChain(ref: ChainRef, firstWaitMs?: number): Promise<void>;
  /** Wakes a chain held by an inactive endpoint, starting its workflow again if it was lost. */
  wakeChain(ref: ChainRef): Promise<void>;
  /** Makes the chain's pending attempt now and answers with its result (retry-pending). */
  attemptChainNow(ref: ChainRef): Promise<AttemptResult>;
}

export const startChain = (runtime: ChainRuntime, ref: ChainRef, firstWaitMs = 0): Promise<void> =>
  runtime.startChain(ref, firstWaitMs);
export const wakeChain = (runtime: ChainRuntime, ref: ChainRef): Promise<void> => runtime.wakeChain(ref);
export const attemptChainNow = (runtime: ChainRuntime, ref: ChainRef): Promise<AttemptResult> =>
  runtime.attemptChainNow(ref);

/** Runs `task` over `items`, at most `limit` at a time. */
export async function eachLimited<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
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
