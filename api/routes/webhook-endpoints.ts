// Webhook endpoints (triggers) and their deliveries: CRUD, test-fire, the delivery log, redelivery and
// retry-pending. The spec's scope table has no webhook scope, so these routes are `unmapped`:
// restricted keys get 403 route_scope_unmapped and wildcard keys pass.
import { ApiError } from '../../domain/errors';
import { checkWebhookUrl } from '../../domain/webhooks/url-policy';
import type { Environment } from '../../domain/tenancy/api-key-format';
import type { ChainRuntime } from '../../domain/webhooks/chains';
import { temporalChains } from '../../orchestration/webhook-chains';
import { redeliver, retryPending, testFire, wakeHeldDeliveries } from '../../domain/webhooks/commands';
import { findDelivery, listDeliveries } from '../../domain/webhooks/deliveries';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  updateEndpoint,
} from '../../domain/webhooks/endpoints';
import { clampDeliveryLimit, parseDeliveryId } from '../../domain/webhooks/listing-rules';
import { requireKnownServer } from '../../domain/webhooks/server-directory';
import { ErrorEnvelope } from '../../schema/http/common';
import {
  Delivery,
  DeliveryList,
  DeliveryListQuery,
  Redelivery,
  RetryPendingReport,
  TestFire,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointCreated,
  WebhookEndpointList,
  WebhookEndpointListQuery,
  WebhookEndpointUpdate,
} from '../../schema/http/webhooks';
import type { AppDeps } from '../deps';
import type { Principal } from '../principal';
import { presentDelivery, presentEndpoint } from '../presenters/webhook-endpoint';
import { route, type AnyRoute } from '../route';

const tags = ['Webhook endpoints'];
const notFound = {
  description: "`not_found`: no such endpoint in the caller's project",
  schema: ErrorEnvelope,
};
const badRequest = {
  description: '`invalid_body` / `invalid_query` (details.issues)',
  schema: ErrorEnvelope,
};

export function chainRuntime(deps: AppDeps): ChainRuntime {
  return temporalChains({ ...deps.temporal, settings: deps.config.webhooks });
}

const scopeOf = (principal: Principal) => ({ orgId: principal.orgId, projectId: principal.projectId });

function requireAllowedUrl(url: string, environment: Environment): void {
  const verdict = checkWebhookUrl(url, environment);
  if (!verdict.ok)
    throw new ApiError(400, 'invalid_webhook_url', verdict.message!, { reason: verdict.reason, environment });
}

export const webhookEndpointRoutes: AnyRoute[] = [
  route({
    method: 'get',
    path: '/v1/webhook-endpoints',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'listWebhookEndpoints',
    summary: 'List webhook endpoints, newest first',
    query: WebhookEndpointListQuery,
    responses: { 200: { description: 'A page of endpoints', schema: WebhookEndpointList }, 400: badRequest },
    async handler({ deps, principal, query }) {
      const page = await listEndpoints(deps.db, scopeOf(principal), {
        before: query.before,
        event: query.event,
        serverId: query.server_id,
        status: query.status,
        limit: query.limit,
      });
      return { body: { triggers: page.rows.map(presentEndpoint), next_before: page.nextBefore } };
    },
  }),
  route({
    method: 'post',
    path: '/v1/webhook-endpoints',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'createWebhookEndpoint',
    summary: 'Subscribe a URL to an event type; the signing secret is shown once',
    body: WebhookEndpointCreate,
    responses: {
      201: {
        description: 'The endpoint with its signing secret (never returned again)',
        schema: WebhookEndpointCreated,
      },
      400: {
        description:
          '`invalid_body`, `invalid_webhook_url` (details.reason: `https_required`, `private_address`, …), `unknown_server`',
        schema: ErrorEnvelope,
      },
    },
    async handler({ deps, principal, body }) {
      requireAllowedUrl(body.webhook_url, principal.environment);
      await requireKnownServer(deps.db, principal.environment, body.server_id);
      const { endpoint, signingSecret } = await createEndpoint(
        deps.db,
        scopeOf(principal),
        {
          name: body.name,
          event: body.event,
          webhookUrl: body.webhook_url,
          serverId: body.server_id ?? null,
        },
        deps.config.encryptionKeys,
      );
      return { status: 201, body: { ...presentEndpoint(endpoint), signing_secret: signingSecret } };
    },
  }),
  route({
    method: 'get',
    path: '/v1/webhook-endpoints/:id',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'getWebhookEndpoint',
    summary: 'Retrieve a webhook endpoint',
    responses: { 200: { description: 'The endpoint', schema: WebhookEndpoint }, 404: notFound },
    async handler({ deps, principal, params }) {
      return { body: presentEndpoint(await getEndpoint(deps.db, scopeOf(principal), params.id)) };
    },
  }),
  route({
    method: 'patch',
    path: '/v1/webhook-endpoints/:id',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'updateWebhookEndpoint',
    summary: 'Rename, change the URL, pause or reactivate an endpoint',
    description:
      'Moving to `active` (from `paused` or `error`) resets the dead-delivery count and sends the deliveries that waited.',
    body: WebhookEndpointUpdate,
    responses: {
      200: { description: 'The endpoint', schema: WebhookEndpoint },
      400: badRequest,
      404: notFound,
    },
    async handler({ deps, principal, params, body }) {
      if (body.webhook_url !== undefined) requireAllowedUrl(body.webhook_url, principal.environment);
      const { endpoint, reactivated } = await updateEndpoint(deps.db, scopeOf(principal), params.id, {
        name: body.name,
        webhookUrl: body.webhook_url,
        status: body.status,
      });
      if (reactivated) await wakeHeldDeliveries(deps.db, chainRuntime(deps), scopeOf(principal), endpoint.id);
      return { body: presentEndpoint(endpoint) };
    },
  }),
  route({
    method: 'delete',
    path: '/v1/webhook-endpoints/:id',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete an endpoint, its signing secret and its deliveries',
    responses: {
      204: { description: 'Deleted' },
      404: notFound,
      503: {
        description:
          '`vault_unavailable`: the signing secret could not be purged; nothing was deleted; retry',
        schema: ErrorEnvelope,
      },
    },
    async handler({ deps, principal, params }) {
      await deleteEndpoint(deps.db, scopeOf(principal), params.id);
      return { status: 204 };
    },
  }),
  route({
    method: 'post',
    path: '/v1/webhook-endpoints/:id/test',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'testWebhookEndpoint',
    summary: 'Send a signed `webhook_endpoint.test` event to this endpoint only',
    responses: {
      202: { description: 'The test delivery is on its way', schema: TestFire },
      404: notFound,
      409: { description: '`trigger_not_active` (details.status)', schema: ErrorEnvelope },
    },
    async handler({ deps, principal, params }) {
      return {
        status: 202,
        body: await testFire(
          deps.db,
          chainRuntime(deps),
          { ...scopeOf(principal), environment: principal.environment },
          params.id,
        ),
      };
    },
  }),
  route({
    method: 'get',
    path: '/v1/webhook-endpoints/:id/deliveries',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'listWebhookDeliveries',
    summary: 'Delivery attempts of an endpoint, newest first, with request and response',
    query: DeliveryListQuery,
    responses: { 200: { description: 'Attempts', schema: DeliveryList }, 404: notFound },
    async handler({ deps, principal, params, query }) {
      const endpoint = await getEndpoint(deps.db, scopeOf(principal), params.id);
      const rows = await listDeliveries(
        deps.db,
        scopeOf(principal),
        endpoint.id,
        clampDeliveryLimit(query.limit),
      );
      return { body: { deliveries: rows.map(presentDelivery) } };
    },
  }),
  route({
    method: 'get',
    path: '/v1/webhook-endpoints/:id/deliveries/:delivery_id',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'getWebhookDelivery',
    summary: 'One delivery attempt',
    responses: {
      200: { description: 'The attempt', schema: Delivery },
      400: {
        description: '`invalid_delivery_id`: not a positive integer of 1 to 19 digits',
        schema: ErrorEnvelope,
      },
      404: notFound,
    },
    async handler({ deps, principal, params }) {
      const id = parseDeliveryId(params.delivery_id);
      const endpoint = await getEndpoint(deps.db, scopeOf(principal), params.id);
      const row = id === null ? null : await findDelivery(deps.db, scopeOf(principal), id, endpoint.id);
      if (!row) throw new ApiError(404, 'not_found', 'Delivery not found');
      return { body: presentDelivery(row) };
    },
  }),
  route({
    method: 'post',
    path: '/v1/webhook-endpoints/deliveries/:delivery_id/redeliver',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'redeliverWebhookDelivery',
    summary: "Send a delivery's event to its endpoint again, as a new pending delivery",
    description:
      'The new delivery waits while the endpoint is not `active` and goes out when it is reactivated.',
    responses: {
      202: { description: 'The redelivery is queued', schema: Redelivery },
      400: { description: '`invalid_delivery_id`', schema: ErrorEnvelope },
      404: { description: '`not_found`', schema: ErrorEnvelope },
    },
    async handler({ deps, principal, params }) {
      const id = parseDeliveryId(params.delivery_id);
      return { status: 202, body: await redeliver(deps.db, chainRuntime(deps), scopeOf(principal), id) };
    },
  }),
  route({
    method: 'post',
    path: '/v1/webhook-endpoints/retry-pending',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'retryPendingWebhookDeliveries',
    summary: "Attempt the project's pending deliveries now and report the outcome",
    description:
      'Drains up to 100 pending attempts per call, oldest due first; attempts of endpoints that are not active keep waiting.',
    responses: { 200: { description: 'What happened', schema: RetryPendingReport } },
    async handler({ deps, principal }) {
      return { body: await retryPending(deps.db, chainRuntime(deps), scopeOf(principal)) };
    },
  }),
];
