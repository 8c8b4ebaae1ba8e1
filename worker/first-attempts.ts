// First delivery attempts, made straight from the dispatcher. Most receivers answer the first time, and a
// chain only needs a workflow (durable backoff timers, the reactivation signal, attempt-now) once it has to
// wait: a failed first attempt starts the chain's workflow at the next attempt with the scheduled backoff,
// a held one starts it at the same attempt. The delivery row is committed (pending) before the attempt, so
// a crash in between leaves it to the overdue sweep, which starts the workflow; an attempt's recording is
// conditional on the row still being pending, so the sweep and a late first attempt never record twice.
// Lanes are bounded; a burst that finds them busy for longer than the caller's wait goes to workflows.
import { startChain, type ChainRuntime } from '../domain/webhooks/chains';
import type { DispatchedChain } from '../domain/webhooks/deliveries';
import type { AttemptContext, ChainKey } from '../domain/webhooks/attempts';
import type { Logger } from '../runtime/logger';
import type { AttemptResult } from '../contracts/webhook-messages';

/** Makes one attempt from a context already read (the delivery activities' `attemptLoaded`). */
export type AttemptFn = (
  key: ChainKey,
  context: AttemptContext,
  retrySchedule: number[],
) => Promise<AttemptResult>;

export interface FirstAttempts {
  /** Takes the chain when a lane frees up within `waitMs`; false means the caller starts its workflow instead. */
  offer(chain: DispatchedChain, waitMs: number): Promise<boolean>;
  /** Resolves once every attempt under way has finished. */
  drain(): Promise<void>;
}

export function firstAttempts(options: {
  lanes: number;
  attempt: AttemptFn;
  runtime: ChainRuntime;
  log: Logger;
}): FirstAttempts {
  const { lanes, attempt, runtime, log } = options;
  let busy = 0;
  const waiting: Array<() => void> = [];
  const underWay = new Set<Promise<void>>();

  const acquire = (waitMs: number): Promise<boolean> => {
    if (busy < lanes) {
      busy += 1;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const take = () => {
        clearTimeout(timer);
        busy += 1;
        resolve(true);
      };
      const timer = setTimeout(() => {
        waiting.splice(waiting.indexOf(take), 1);
        resolve(false);
      }, waitMs);
      waiting.push(take);
    });
  };
  const release = () => {
    busy -= 1;
    waiting.shift()?.();
  };

  const run = async ({ context, ...chain }: DispatchedChain): Promise<void> => {
    try {
      const key = {
        orgId: chain.org_id,
        projectId: chain.project_id,
        chainId: chain.chain_id.toString(),
        attempt: chain.attempt,
      };
      const result = await attempt(key, context, runtime.settings.retrySchedule);
      if (result.kind === 'retry')
        await startChain(runtime, { ...chain, attempt: result.attempt + 1 }, result.retryInMs);
      else if (result.kind === 'held') await startChain(runtime, chain);
    } catch (error) {
      // The row is still pending (or its next attempt is): the workflow, or failing that the sweep, carries on.
      log.warn('first delivery attempt failed; handing the chain to its workflow', {
        chain_id: chain.chain_id.toString(),
        error: (error as Error).message,
      });
      await startChain(runtime, chain).catch(() => undefined);
    } finally {
      release();
    }
  };

  return {
    async offer(chain, waitMs) {
      if (!(await acquire(waitMs))) return false;
      const task = run(chain);
      underWay.add(task);
      void task.finally(() => underWay.delete(task));
      return true;
    },
    async drain() {
      while (underWay.size > 0) await Promise.all([...underWay]);
    },
  };
}
