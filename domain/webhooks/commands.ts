// The delivery commands behind the API: redeliver one delivery, drain a project's pending queue,
// replay a stored event, test-fire an endpoint, and wake the deliveries a reactivated endpoint held.
// Each writes its rows in one transaction, then starts or wakes the chains' workflows.
import type { DatabasePool } from '../../runtime/database';
import { ApiError, notFound } from '../errors';
import { findEvent, insertUndispatchableEvent } from '../events/queries';
import { sortableId } from '../ids';
import type { Environment } from '../tenancy/api-key-format';
import { attemptChainNow, eachLimited, startChain, wakeChain, type ChainRuntime } from './chains';
import { findDelivery, heldChains, insertChain, pendingForProject, type ChainRef } from './deliveries';
import {
  activeSubscribers,
  findEndpoint,
  getEndpoint,
  type EndpointRow,
  type EndpointScope,
} from './endpoints';

/** Pending attempts one retry-pending call drains, and how many it attempts at once. */
export const RETRY_PENDING_PAGE = 100;
const RETRY_PENDING_CONCURRENCY = 10;
/** Held deliveries a reactivation wakes at once; any beyond are restarted by the worker's sweep. */
const WAKE_LIMIT = 1_000;

/**
 * The chain's rows are committed, so it is durably queued: if Temporal cannot take the start right now,
 * the worker's overdue sweep starts it later, and the caller still gets its 202.
 */
async function startOrSweep(runtime: ChainRuntime, chain: ChainRef): Promise<void> {
  await startChain(runtime, chain).catch(() => undefined);
}

export async function redeliver(
  db: DatabasePool,
  runtime: ChainRuntime,
  scope: EndpointScope,
  deliveryId: bigint | null,
) {
  const original = deliveryId === null ? null : await findDelivery(db, scope, deliveryId);
  if (!original) throw notFound('Delivery');
  const { chain, endpoint } = await db.transaction(async (tx) => {
    const endpoint = await getEndpoint(tx, scope, original.trigger_id);
    const chain = await insertChain(tx, scope, {
      triggerId: original.trigger_id,
      eventId: original.event_id,
      origin: 'redeliver',
      redeliveryOf: original.id,
    });
    return { chain, endpoint };
  });
  await startOrSweep(runtime, chain);
  return {
    redelivery_id: chain.chain_id.toString(),
    trigger_id: endpoint.id,
    event_id: original.event_id,
    trigger_status: endpoint.status,
  };
}

export interface RetryPendingReport {
  scanned: number;
  redispatched: number;
  delivered: number;
  failed: number;
  dead: number;
}

/** Makes every pending attempt of the project's active endpoints now and reports what became of them. */
export async function retryPending(
  db: DatabasePool,
  runtime: ChainRuntime,
  scope: EndpointScope,
): Promise<RetryPendingReport> {
  const pending = await pendingForProject(db, scope, RETRY_PENDING_PAGE);
  const report: RetryPendingReport = {
    scanned: pending.length,
    redispatched: 0,
    delivered: 0,
    failed: 0,
    dead: 0,
  };
  const due = pending.filter((row) => row.endpoint_status === 'active');
  const results = await eachLimited(due, RETRY_PENDING_CONCURRENCY, (ref) => attemptChainNow(runtime, ref));
  for (const result of results) {
    if (result.status === 'rejected') continue;
    const outcome = result.value;
    if (outcome.kind === 'held' || outcome.kind === 'abandoned') continue;
    report.redispatched += 1;
    if (outcome.kind === 'delivered') report.delivered += 1;
    if (outcome.kind === 'retry') report.failed += 1;
    if (outcome.kind === 'dead') report.dead += 1;
  }
  return report;
}

/**
 * Re-dispatches a stored event without minting a new one: to `triggerId` alone (which must be in the
 * project, subscribed to the event's type and active), or to every active subscriber. Answers once
 * the chains are started, before any receiver answers.
 */
export async function replayEvent(
  db: DatabasePool,
  runtime: ChainRuntime,
  scope: EndpointScope,
  eventId: string,
  triggerId?: string,
) {
  const event = await findEvent(db, scope, eventId);
  if (!event) throw notFound('Event');
  let targets: EndpointRow[];
  if (triggerId !== undefined) {
    const endpoint = await findEndpoint(db, scope, triggerId);
    if (!endpoint)
      throw new ApiError(404, 'trigger_not_found', `No webhook endpoint ${triggerId} in this project`, {
        trigger_id: triggerId,
      });
    if (endpoint.event !== event.type) {
      throw new ApiError(400, 'trigger_event_mismatch', 'The endpoint subscribes to another event type', {
        trigger_event: endpoint.event,
        event_type: event.type,
      });
    }
    if (endpoint.status !== 'active') {
      throw new ApiError(409, 'trigger_not_active', 'The endpoint is not active; reactivate it first', {
        status: endpoint.status,
      });
    }
    targets = [endpoint];
  } else {
    const serverId = (event.data as Record<string, unknown> | null)?.server_id;
    targets = await activeSubscribers(db, scope, event.type, typeof serverId === 'string' ? serverId : null);
  }
  const chains = await db.transaction(async (tx) => {
    const made: ChainRef[] = [];
    for (const target of targets)
      made.push(await insertChain(tx, scope, { triggerId: target.id, eventId: event.id, origin: 'replay' }));
    return made;
  });
  await eachLimited(chains, 16, (chain) => startOrSweep(runtime, chain));
  return { event_id: event.id, dispatched: chains.length, trigger_id: triggerId ?? null };
}

/** Sends a `webhook_endpoint.test` event to one active endpoint only. */
export async function testFire(
  db: DatabasePool,
  runtime: ChainRuntime,
  scope: EndpointScope & { environment: Environment },
  triggerId: string,
) {
  const endpoint = await getEndpoint(db, scope, triggerId);
  if (endpoint.status !== 'active')
    throw new ApiError(409, 'trigger_not_active', 'The endpoint is not active; reactivate it first', {
      status: endpoint.status,
    });
  const chain = await db.transaction(async (tx) => {
    const event = await insertUndispatchableEvent(tx, scope, sortableId('evt'), 'webhook_endpoint.test', {
      trigger_id: endpoint.id,
      subscribed_event: endpoint.event,
      message: 'A test delivery from the Agent Payments Gateway.',
    });
    return insertChain(tx, scope, { triggerId: endpoint.id, eventId: event.id, origin: 'test' });
  });
  await startOrSweep(runtime, chain);
  return { delivery_id: chain.chain_id.toString(), event_id: chain.event_id, trigger_id: endpoint.id };
}

/** After a reactivation: the attempts that waited for the endpoint go out now. */
export async function wakeHeldDeliveries(
  db: DatabasePool,
  runtime: ChainRuntime,
  scope: EndpointScope,
  triggerId: string,
): Promise<number> {
  const held = await heldChains(db, scope, triggerId, WAKE_LIMIT);
  await eachLimited(held, 16, (chain) => wakeChain(runtime, chain));
  return held.length;
}
