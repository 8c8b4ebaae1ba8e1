// Consumers (titulars), their wallet roll-up, their mandates and the consent log. The spec's scope
// table maps none of these, so restricted keys get route_scope_unmapped; unrestricted keys pass.
import {
  createConsumer,
  getConsumer,
  listConsumers,
  updateConsumer,
  type ConsumerPatch,
} from '../../domain/consumers/consumers';
import type { Tenant } from '../../domain/consumers/tenant';
import { consumerWallet } from '../../domain/consumers/wallet-rollup';
import { getConsentRecord } from '../../domain/mandates/consent-records';
import { listConsumerMandates } from '../../domain/mandates/mandates';
import { ErrorEnvelope } from '../../schema/http/common';
import {
  ConsentRecord,
  Consumer,
  ConsumerCreate,
  ConsumerList,
  ConsumerListQuery,
  ConsumerPatch as ConsumerPatchSchema,
  ConsumerWallet,
} from '../../schema/http/consumers';
import { MandateList } from '../../schema/http/mandates';
import type { Principal } from '../principal';
import { presentConsentRecord, presentConsumer } from '../presenters/consumer';
import { jsonWithIntegers } from '../presenters/json-integers';
import { presentMandate } from '../presenters/mandate';
import { route, type AnyRoute } from '../route';

const tags = ['Consumers'];
const notFound = {
  description: "`not_found`: no such consumer in the caller's project",
  schema: ErrorEnvelope,
};
const badRequest = {
  description: '`invalid_body` / `invalid_query` with details.issues',
  schema: ErrorEnvelope,
};

export const tenantOf = (principal: Principal): Tenant => ({
  orgId: principal.orgId,
  projectId: principal.projectId,
  environment: principal.environment,
});

export const consumerRoutes: AnyRoute[] = [
  route({
    method: 'get',
    path: '/v1/consumers',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'listConsumers',
    summary: "List the project's consumers, newest first",
    query: ConsumerListQuery,
    responses: { 200: { description: 'Consumers', schema: ConsumerList }, 400: badRequest },
    async handler({ deps, principal, query }) {
      const rows = await listConsumers(deps.db, tenantOf(principal), {
        verified: query.verified,
        limit: query.limit,
      });
      return { body: { consumers: rows.map(presentConsumer) } };
    },
  }),
  route({
    method: 'post',
    path: '/v1/consumers',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'createConsumer',
    summary: 'Create a consumer (without a document; it is recorded when verified)',
    body: ConsumerCreate,
    responses: { 201: { description: 'The new consumer, `unverified`', schema: Consumer }, 400: badRequest },
    async handler({ deps, principal, body }) {
      const row = await createConsumer(deps.db, tenantOf(principal), {
        displayName: body.display_name ?? null,
        metadata: body.metadata ?? {},
      });
      return { status: 201, body: presentConsumer(row) };
    },
  }),
  route({
    method: 'get',
    path: '/v1/consumers/:id',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'getConsumer',
    summary: 'Retrieve a consumer',
    responses: { 200: { description: 'The consumer', schema: Consumer }, 404: notFound },
    async handler({ deps, principal, params }) {
      return { body: presentConsumer(await getConsumer(deps.db, tenantOf(principal), params.id)) };
    },
  }),
  route({
    method: 'patch',
    path: '/v1/consumers/:id',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'updateConsumer',
    summary: "Change a consumer's display name, metadata or tax type",
    body: ConsumerPatchSchema,
    responses: {
      200: { description: 'The updated consumer', schema: Consumer },
      400: badRequest,
      404: notFound,
    },
    async handler({ deps, principal, params, body }) {
      return { body: presentConsumer(await updateConsumer(deps.db, tenantOf(principal), params.id, body)) };
    },
  }),
  route({
    method: 'get',
    path: '/v1/consumers/:id/wallet',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'getConsumerWallet',
    summary: "The consumer's wallet roll-up per currency, from active mandates and their spends",
    description:
      'Amounts are JSON integers in minor units (exact: written digit for digit, never through a float).',
    responses: { 200: { description: 'Roll-up', schema: ConsumerWallet }, 404: notFound },
    async handler({ deps, principal, params }) {
      const wallet = await consumerWallet(deps.db, tenantOf(principal), params.id);
      return { body: jsonWithIntegers(wallet), type: 'application/json; charset=utf-8' };
    },
  }),
  route({
    method: 'get',
    path: '/v1/consumers/:id/mandates',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'listConsumerMandates',
    summary: "The consumer's mandates, newest first",
    query: {
      type: 'object',
      additionalProperties: false,
      properties: { status: { enum: ['active', 'revoked', 'expired'] } },
    },
    responses: { 200: { description: 'Mandates', schema: MandateList }, 404: notFound },
    async handler({ deps, principal, params, query }) {
      const tenant = tenantOf(principal);
      await getConsumer(deps.db, tenant, params.id);
      return {
        body: {
          mandates: (await listConsumerMandates(deps.db, tenant, params.id, query.status)).map(
            presentMandate,
          ),
        },
      };
    },
  }),
  route({
    method: 'get',
    path: '/v1/consent-records/:id',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'getConsentRecord',
    summary: 'Retrieve a consent log row (grant, revoke or amend)',
    description: "Any project of the caller's organization, in the caller's environment.",
    responses: {
      200: { description: 'The consent record', schema: ConsentRecord },
      404: {
        description:
          "`not_found`: not in the caller's organization (or in a project of the other environment)",
        schema: ErrorEnvelope,
      },
    },
    async handler({ deps, principal, params }) {
      return { body: presentConsentRecord(await getConsentRecord(deps.db, tenantOf(principal), params.id)) };
    },
  }),
];
