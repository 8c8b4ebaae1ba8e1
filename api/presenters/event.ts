// The public shape of an event: the same object a webhook receiver gets in its request body.
import { eventPayload, type EventPayload } from '../../domain/events/payload';
import type { EventRow } from '../../domain/events/queries';

export function presentEvent(row: EventRow): EventPayload {
  return eventPayload(row);
}
