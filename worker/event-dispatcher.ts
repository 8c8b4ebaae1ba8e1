// The event dispatcher, run inside each worker process. It LISTENs on `gateway_events` (a trigger on
// the outbox NOTIFYs at commit), claims committed undispatched events, fans them out into delivery
// chains for subscribed active endpoints and makes each chain's first attempt itself (first-attempts.ts);
// a chain that has to wait, or finds every lane busy, goes to its workflow. A periodic sweep catches
// what a lost notification or a crash between commit and workflow start left behind. Several worker
// processes may run it at once: claims use SKIP LOCKED and workflow ids are chain ids.
import { Client as PgClient } from 'pg';
import { eachLimited, startChain, wakeChain, type ChainRuntime } from '../domain/webhooks/chains';
import { temporalChains, type TemporalChainConfig } from '../orchestration/webhook-chains';
import { firstAttempts, type AttemptFn } from './first-attempts';
import { fanOutUndispatched, overdueChains } from '../domain/webhooks/deliveries';
import type { DatabasePool } from '../runtime/database';
import type { Logger } from '../runtime/logger';

export const EVENTS_CHANNEL = 'gateway_events';
/** Events claimed per transaction. */
const BATCH = 200;
/** Workflow starts in flight at once. */
const START_CONCURRENCY = 64;
/** First attempts in flight at once, and how long a chain waits for a lane before it goes to its workflow. */
const FIRST_ATTEMPT_LANES = 64;
const LANE_WAIT_MS = 2_000;
/** A pending attempt this overdue has no live workflow behind it (the receiver timeout is 15 s). */
const OVERDUE_GRACE_SECONDS = 60;

export interface EventDispatcherOptions {
  databaseUrl: string;
  db: DatabasePool;
  /** The Temporal client and task queue the chains' workflows start on (bound to the chains port here). */
  runtime: TemporalChainConfig;
  log: Logger;
  /** Makes one attempt of a chain (the delivery activity's function). */
  attempt: AttemptFn;
}

export interface EventDispatcher {
  /** Dispatches everything committed and undispatched now, and restarts overdue chains. */
  sweep(): Promise<void>;
  stop(): Promise<void>;
}

export async function startEventDispatcher(options: EventDispatcherOptions): Promise<EventDispatcher> {
  const { db, log } = options;
  const runtime: ChainRuntime = temporalChains(options.runtime);
  let listener: PgClient | undefined;
  let stopping = false;
  let reconnect: NodeJS.Timeout | undefined;
  let pumping: Promise<void> | undefined;
  let again = false;

  const first = firstAttempts({ lanes: FIRST_ATTEMPT_LANES, attempt: options.attempt, runtime, log });

  const dispatchBatch = async (): Promise<number> => {
    const { claimed, chains } = await db.transaction((tx) => fanOutUndispatched(tx, BATCH));
    const toWorkflows = [];
    // Once a chain found every lane busy past the wait, the rest of the batch goes to workflows at once.
    let waitMs = LANE_WAIT_MS;
    for (const chain of chains) {
      if (!stopping && (await first.offer(chain, waitMs))) continue;
      toWorkflows.push(chain);
      waitMs = 0;
    }
    const results = await eachLimited(toWorkflows, START_CONCURRENCY, (chain) => startChain(runtime, chain));
    const failed = results.filter((result) => result.status === 'rejected');
    // A chain whose start failed is pending and will be picked up by the overdue sweep.
    if (failed.length > 0)
      log.warn('delivery chains not started', {
        count: failed.length,
        error: describe((failed[0] as PromiseRejectedResult).reason),
      });
    return claimed;
  };

  /** Coalesces wake-ups: one pump at a time, and one more pass if events arrived meanwhile. */
  const pump = (): Promise<void> => {
    if (pumping) {
      again = true;
      return pumping;
    }
    pumping = (async () => {
      try {
        do {
          again = false;
          while (!stopping && (await dispatchBatch()) === BATCH);
        } while (again && !stopping);
      } catch (error) {
        log.error('event dispatch failed', { error: (error as Error).message });
      } finally {
        pumping = undefined;
      }
    })();
    return pumping;
  };

  const restartOverdue = async (): Promise<void> => {
    const overdue = await overdueChains(db, OVERDUE_GRACE_SECONDS, 500);
    if (overdue.length === 0) return;
    log.info('restarting overdue delivery chains', { count: overdue.length });
    await eachLimited(overdue, START_CONCURRENCY, (chain) => wakeChain(runtime, chain));
  };

  const sweep = async (): Promise<void> => {
    await pump();
    await restartOverdue().catch((error: Error) =>
      log.error('delivery sweep failed', { error: error.message }),
    );
  };

  const scheduleReconnect = (): void => {
    if (stopping) return;
    reconnect = setTimeout(
      () =>
        void connect().catch((error: Error) => {
          log.warn('event listener could not reconnect', { error: error.message });
          scheduleReconnect();
        }),
      1_000,
    );
  };

  const connect = async (): Promise<void> => {
    const client = new PgClient({ connectionString: options.databaseUrl });
    client.on('notification', () => void pump());
    client.on('error', (error) => {
      log.warn('event listener lost its connection', { error: error.message });
      client.end().catch(() => undefined);
      scheduleReconnect();
    });
    await client.connect();
    await client.query(`LISTEN ${EVENTS_CHANNEL}`);
    listener = client;
    // Anything committed while nobody listened goes out now.
    void pump();
  };

  await connect();
  const timer = setInterval(() => void sweep(), runtime.settings.sweepIntervalMs);
  timer.unref();

  return {
    sweep,
    async stop() {
      stopping = true;
      clearInterval(timer);
      if (reconnect) clearTimeout(reconnect);
      await listener?.end().catch(() => undefined);
      await pumping;
      await first.drain();
    },
  };
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { message?: string } })?.cause?.message;
  return cause ? `${(error as Error).message}: ${cause}` : String(error);
}
