// The process's Prometheus metrics (prom-client): one registry per process, the gateway's own counters and
// histograms, and gauges read at scrape time (the pool, and backlogs from PostgreSQL). Business counters
// count committed facts only: every money move writes an outbox event in its transaction, and events are
// counted after that transaction commits (after-commit.ts), in the process that committed it.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DatabasePool } from 'slonik';

export const registry = new Registry();

export const httpRequests = new Counter({
  name: 'gateway_http_requests_total',
  help: 'HTTP requests answered, by method, route template and status',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
});

export const httpDuration = new Histogram({
  name: 'gateway_http_request_duration_seconds',
  help: 'Time to answer an HTTP request (to the first byte of a stream), by method and route template',
  labelNames: ['method', 'route'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

const eventsCommitted = new Counter({
  name: 'gateway_events_total',
  help: 'Outbox events committed by this process, by type',
  labelNames: ['type'] as const,
  registers: [registry],
});

const attempts = new Counter({
  name: 'gateway_attempts_total',
  help: 'Money attempts that reached an outcome, by family (wallet_execute, tool_charge, consumer_spend) and outcome',
  labelNames: ['family', 'outcome'] as const,
  registers: [registry],
});

const ledgerPosts = new Counter({
  name: 'gateway_ledger_posts_total',
  help: 'Ledger entries committed by this process, by kind',
  labelNames: ['kind'] as const,
  registers: [registry],
});

const webhookDeliveries = new Counter({
  name: 'gateway_webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts recorded, by outcome (delivered, failed, dead)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

const webhookDeliveryDuration = new Histogram({
  name: 'gateway_webhook_delivery_duration_seconds',
  help: 'Time a receiver took to answer a delivery attempt, by outcome',
  labelNames: ['outcome'] as const,
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15],
  registers: [registry],
});

export interface Backlogs {
  approvalsPending: number;
  eventsUndispatched: number;
  deliveriesPending: number;
}

/** What a scrape reads from PostgreSQL: this process's pool, and the deployment's backlogs through it. */
export interface ScrapeSource {
  db: DatabasePool;
  backlogs(db: DatabasePool): Promise<Backlogs>;
}

const approvalsPending = new Gauge({
  name: 'gateway_approvals_pending',
  help: 'Approvals waiting for a decision, deployment-wide',
  registers: [registry],
});
const webhookBacklog = new Gauge({
  name: 'gateway_webhook_backlog',
  help: 'Webhook work not yet done, deployment-wide: events not yet dispatched, and delivery attempts pending',
  labelNames: ['stage'] as const,
  registers: [registry],
});
const poolConnections = new Gauge({
  name: 'gateway_db_pool_connections',
  help: 'PostgreSQL pool connections of this process, by state (active, idle, waiting clients)',
  labelNames: ['state'] as const,
  registers: [registry],
});

let defaultsOn = false;

/** The text of a scrape. Backlogs come from one query; when it fails the gauges keep their last values. */
export async function scrape(source?: ScrapeSource): Promise<string> {
  if (!defaultsOn) {
    defaultsOn = true;
    collectDefaultMetrics({ register: registry });
  }
  if (source) {
    const state = source.db.getPoolState();
    poolConnections.set({ state: 'active' }, state.activeConnectionCount);
    poolConnections.set({ state: 'idle' }, state.idleConnectionCount);
    poolConnections.set({ state: 'waiting' }, state.waitingClientCount);
    const backlog = await source.backlogs(source.db).catch(() => null);
    if (backlog) {
      approvalsPending.set(backlog.approvalsPending);
      webhookBacklog.set({ stage: 'undispatched' }, backlog.eventsUndispatched);
      webhookBacklog.set({ stage: 'pending' }, backlog.deliveriesPending);
    }
  }
  return registry.metrics();
}

/** Counts one committed event; ledger posts by kind are read from it. */
export function countEvent(type: string, data: unknown): void {
  eventsCommitted.inc({ type });
  const fields = (data ?? {}) as { kind?: unknown };
  if (type === 'ledger.entry_posted' && typeof fields.kind === 'string')
    ledgerPosts.inc({ kind: fields.kind });
}

/**
 * Counts one money attempt that reached an outcome (its payment event's suffix: succeeded, failed, denied,
 * requires_approval, uncertain), by its family as the attempts table spells it.
 */
export function countAttempt(family: string, outcome: string): void {
  attempts.inc({ family, outcome });
}

/** Counts one recorded webhook delivery attempt and how long its receiver took. */
export function countDelivery(outcome: 'delivered' | 'failed' | 'dead', seconds: number | null): void {
  webhookDeliveries.inc({ outcome });
  if (seconds !== null) webhookDeliveryDuration.observe({ outcome }, seconds);
}
