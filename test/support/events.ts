// Writes an outbox event the way every area does: `recordEvent` inside the transaction of a state
// change. Webhook tests use it to stand in for the areas (payments, consents, …) that emit events.
import { recordEvent, type RecordedEvent } from '../../domain/events/record';
import type { EventType } from '../../contracts/event-catalog';
import type { Gateway, Tenant } from './harness';

export async function emitEvent(
  gw: Gateway,
  tenant: Tenant,
  type: EventType,
  data: unknown,
  environment: 'live' | 'test' = 'test',
): Promise<RecordedEvent> {
  return gw.db.transaction((tx) =>
    recordEvent(tx, { orgId: tenant.orgId, projectId: tenant.projectId, environment }, type, data),
  );
}
