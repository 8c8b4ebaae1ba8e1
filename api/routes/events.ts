// The event catalog, the event log and replay: list the types, list and read stored events (the payload
// receivers get), and re-dispatch one to its subscribers without minting a new event. Scope `unmapped`,
// like the webhook routes.
import { EVENT_CATALOG, EVENT_TYPES, catalogMarkdown, isSubscribable } from '../../contracts/event-catalog';
import { getEvent, listEvents } from '../../domain/events/queries';
import { replayEvent } from '../../domain/webhooks/commands';
import { ErrorEnvelope } from '../../schema/http/common';
import {
  Event,
  EventList,
  EventListQuery,
  EventTypeList,
  Replay,
  ReplayQuery,
} from '../../schema/http/events';
import { presentEvent } from '../presenters/event';
import { route, type AnyRoute } from '../route';
import { chainRuntime } from './webhook-endpoints';

const tags = ['Events'];

function presentEventTypes() {
  return {
    event_types: EVENT_TYPES.map((type) => ({
      type,
      area: EVENT_CATALOG[type].area,
      description: EVENT_CATALOG[type].description,
      subscribable: isSubscribable(type),
      reserved: 'reserved' in EVENT_CATALOG[type],
    })),
  };
}

export const eventRoutes: AnyRoute[] = [
  route({
    method: 'get',
    path: '/v1/event-types',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'listEventTypes',
    summary:
      'The event catalog: every type the gateway writes, what it means, and whether endpoints may subscribe to it',
    description: `The same list \`POST /v1/webhook-endpoints\` accepts as \`event\` (less the test-fire).\n\n${catalogMarkdown()}`,
    responses: { 200: { description: 'The catalog, in a stable order', schema: EventTypeList } },
    async handler() {
      return { body: presentEventTypes() };
    },
  }),
  route({
    method: 'get',
    path: '/v1/events',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'listEvents',
    summary: "List the project's events, newest first",
    description: `Every state change a tenant cares about is written as an event in the same transaction as the change.\n\n${catalogMarkdown()}`,
    query: EventListQuery,
    responses: {
      200: { description: 'A page of events', schema: EventList },
      400: { description: '`invalid_query`', schema: ErrorEnvelope },
    },
    async handler({ deps, principal, query }) {
      const page = await listEvents(
        deps.db,
        { orgId: principal.orgId, projectId: principal.projectId },
        query,
      );
      return { body: { events: page.rows.map(presentEvent), next_before: page.nextBefore } };
    },
  }),
  route({
    method: 'get',
    path: '/v1/events/:id',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'getEvent',
    summary: 'Retrieve an event',
    responses: {
      200: { description: 'The event', schema: Event },
      404: { description: '`not_found`', schema: ErrorEnvelope },
    },
    async handler({ deps, principal, params }) {
      return {
        body: presentEvent(
          await getEvent(deps.db, { orgId: principal.orgId, projectId: principal.projectId }, params.id),
        ),
      };
    },
  }),
  route({
    method: 'post',
    path: '/v1/events/:event_id/replay',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'replayEvent',
    summary: 'Re-dispatch a stored event to active subscribers (202 before any receiver answers)',
    query: ReplayQuery,
    responses: {
      202: { description: 'Delivery chains started', schema: Replay },
      400: {
        description: '`trigger_event_mismatch` (details `trigger_event`, `event_type`)',
        schema: ErrorEnvelope,
      },
      404: {
        description: '`not_found` (no such event) or `trigger_not_found` (no such endpoint)',
        schema: ErrorEnvelope,
      },
      409: { description: '`trigger_not_active` (details.status)', schema: ErrorEnvelope },
    },
    async handler({ deps, principal, params, query }) {
      const scope = { orgId: principal.orgId, projectId: principal.projectId };
      return {
        status: 202,
        body: await replayEvent(deps.db, chainRuntime(deps), scope, params.event_id, query.trigger_id),
      };
    },
  }),
];
