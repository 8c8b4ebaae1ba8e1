// DDA (boletos owed): register a payer document for a consumer, read and end the registration, list
// the boletos it owes; and the provider's signed confirmation webhook, which moves a registration from
// `pending` to `active` (verified by its HMAC before anything is read from it).
import { ErrorEnvelope } from '../../schema/http/common';
import {
  DdaBoletoList,
  DdaBoletoQuery,
  DdaDocumentParams,
  DdaSubscription,
  DdaSubscriptionCreate,
  DdaSubscriptionDeleted,
  DdaSubscriptionRegistered,
} from '../../schema/http/dda';
import type { JsonSchema } from '../../schema/http/json-schema';
import type { DdaSubscriptionRow } from '../../domain/dda/subscriptions';
import { findByClientRequestId } from '../../domain/dda/subscriptions';
import { ApiError } from '../../domain/errors';
import { noteDdaConfirmation } from '../../orchestration/dda';
import {
  DDA_SIGNATURE_HEADER,
  DDA_TIMESTAMP_HEADER,
  verifyDdaWebhook,
} from '../../domain/dda/webhook-signature';
import { listDdaBoletos } from '../flows/dda-boletos';
import {
  DDA_WEBHOOK_PATH,
  deleteDdaRegistration,
  readDdaRegistration,
  registerDdaDocument,
} from '../flows/dda';
import { publicOrigin } from '../public-origin';
import { route, type AnyRoute } from '../route';
import { tenantOf } from './consumers';

const tags = ['DDA'];
const envelope = (description: string) => ({ description, schema: ErrorEnvelope });

const DdaConfirmation = {
  type: 'object',
  properties: {
    event: { type: 'string', maxLength: 64 },
    status: { type: 'string', maxLength: 32 },
    clientRequestId: { type: 'string', maxLength: 128 },
    subscriptionId: { type: 'string', maxLength: 128 },
  },
} as const satisfies JsonSchema;

const presentRegistered = (row: DdaSubscriptionRow, replayed: boolean) => ({
  document: row.document,
  status: row.status,
  client_request_id: row.client_request_id,
  mandate_id: row.mandate_id,
  replayed,
});

export const ddaRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/v1/consumers/:consumerId/dda/subscriptions',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'registerDdaSubscription',
    summary: 'Register a payer document for DDA (boletos owed)',
    description:
      "The document must be the consumer's verified document and named in an active mandate's signed `dda_allowlist`. " +
      'The registration stays `pending` until the provider confirms it by webhook. The same `idempotency_key` for the ' +
      'same document answers the same registration.',
    body: DdaSubscriptionCreate,
    responses: {
      200: {
        description: 'Nothing registered by this call (`replayed`: true, current status)',
        schema: DdaSubscriptionRegistered,
      },
      201: { description: 'Registered (`pending`)', schema: DdaSubscriptionRegistered },
      400: envelope(
        '`invalid_body`: schema mismatch (details.issues), a document that is no CPF or CNPJ, a blank key',
      ),
      403: envelope(
        '`dda_document_not_owned`, `dda_document_unauthorized` (no active mandate names the document)',
      ),
      422: envelope(
        '`no_partner_account`, or `dda_document_not_owned` when the account has no verified document',
      ),
      502: envelope('`dda_provider_unavailable`: retry with the same idempotency_key'),
      503: envelope('`dda_claim_unavailable`: the registration could not start; retry with the same key'),
    },
    async handler({ deps, principal, params, body, ctx }) {
      const callbackUrl = `${publicOrigin(deps.config, ctx)}${DDA_WEBHOOK_PATH}`;
      const result = await registerDdaDocument(
        deps,
        tenantOf(principal),
        params.consumerId,
        body,
        callbackUrl,
      );
      return {
        status: result.replayed ? 200 : 201,
        body: presentRegistered(result.row, result.replayed),
      };
    },
  }),
  route({
    method: 'get',
    path: '/v1/consumers/:consumerId/dda/subscriptions/:document',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'getDdaSubscription',
    summary: "A consumer's DDA registration of a document (punctuation is stripped)",
    params: DdaDocumentParams,
    responses: {
      200: { description: 'The registration', schema: DdaSubscription },
      400: envelope('`invalid_body`: not a CPF or CNPJ'),
      404: envelope("`not_found` (also for another organization's consumer)"),
    },
    async handler({ deps, principal, params }) {
      const row = await readDdaRegistration(deps, tenantOf(principal), params.consumerId, params.document);
      return {
        body: {
          document: row.document,
          status: row.status,
          client_request_id: row.client_request_id,
          provider_subscription_id: row.provider_subscription_id,
        },
      };
    },
  }),
  route({
    method: 'delete',
    path: '/v1/consumers/:consumerId/dda/subscriptions/:document',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'deleteDdaSubscription',
    summary: 'End a DDA registration upstream',
    params: DdaDocumentParams,
    responses: {
      200: { description: 'Ended', schema: DdaSubscriptionDeleted },
      400: envelope('`invalid_body`: not a CPF or CNPJ'),
      404: envelope('`not_found`'),
      502: envelope('`dda_provider_unavailable`: the provider could not end it; nothing changed'),
    },
    async handler({ deps, principal, params, ctx }) {
      const callbackUrl = `${publicOrigin(deps.config, ctx)}${DDA_WEBHOOK_PATH}`;
      const row = await deleteDdaRegistration(
        deps,
        tenantOf(principal),
        params.consumerId,
        params.document,
        callbackUrl,
      );
      return { body: { document: row.document, status: row.status } };
    },
  }),
  route({
    method: 'get',
    path: '/v1/consumers/:consumerId/dda/boletos',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'listDdaBoletos',
    summary: "Boletos owed by the consumer's active DDA registrations (no pagination)",
    query: DdaBoletoQuery,
    responses: {
      200: { description: 'Boletos whose linha digitável verifies', schema: DdaBoletoList },
      400: envelope(
        '`invalid_query` (bad dates, to_date before from_date), `invalid_date_range` (refused by the provider)',
      ),
      404: envelope('`not_found`'),
      502: envelope('`dda_provider_unavailable`'),
    },
    async handler({ deps, principal, params, query }) {
      return { body: await listDdaBoletos(deps, tenantOf(principal), params.consumerId, query) };
    },
  }),
  route({
    method: 'post',
    path: DDA_WEBHOOK_PATH,
    auth: 'public',
    scope: null,
    tags: ['Inbound webhooks'],
    undocumented: true,
    bodyOptional: true,
    operationId: 'ddaConfirmationWebhook',
    summary: "The DDA provider's signed confirmation of a registration",
    body: DdaConfirmation,
    responses: {
      200: { description: 'Received' },
      401: envelope('`invalid_signature`: nothing read, nothing changed'),
    },
    async handler({ deps, body, ctx }) {
      const raw = (ctx.state as { rawBody?: Buffer }).rawBody ?? Buffer.alloc(0);
      const check = verifyDdaWebhook(
        deps.config.ddaWebhookSecret,
        {
          signature: ctx.get(DDA_SIGNATURE_HEADER) || undefined,
          timestamp: ctx.get(DDA_TIMESTAMP_HEADER) || undefined,
        },
        raw,
        Math.floor(Date.now() / 1000),
      );
      if (!check.ok)
        throw new ApiError(401, 'invalid_signature', 'The webhook signature does not verify', {
          reason: check.reason,
        });
      if (body.status !== 'ACTIVE' || !body.clientRequestId || !body.subscriptionId)
        return { body: { received: true, applied: false } };
      const row = await findByClientRequestId(deps.db, body.clientRequestId);
      if (!row || row.status !== 'pending') return { body: { received: true, applied: false } };
      await noteDdaConfirmation(
        deps.temporal,
        { subscriptionId: row.id, callbackUrl: `${publicOrigin(deps.config, ctx)}${DDA_WEBHOOK_PATH}` },
        {
          orgId: row.org_id,
          projectId: row.project_id,
          environment: row.environment,
          consumerId: row.consumer_id,
          mandateId: row.mandate_id,
        },
        body.subscriptionId,
      );
      return { body: { received: true, applied: true } };
    },
  }),
];
