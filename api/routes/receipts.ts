// Receipts of mandate-bound spends: list per consumer, read one, seal a delivery proof, record an
// exception or a void; the consumer's receipt secret; the published Ed25519 verification keys.
import { requireConsumer } from '../../domain/receipts/consumer-scope';
import { rotateReceiptSecret } from '../../domain/receipts/consumer-secrets';
import { getReceipt, listReceipts, moveReceipt, type MoveInput } from '../../domain/receipts/receipts';
import { publishedSigningKeys } from '../../domain/receipts/signing-keys';
import { ErrorEnvelope } from '../../schema/http/common';
import {
  DeliveryProof,
  Receipt,
  ReceiptException,
  ReceiptList,
  ReceiptListQuery,
  ReceiptSecretCreated,
  ReceiptVoid,
  SigningKeys,
} from '../../schema/http/receipts';
import type { JsonSchema, SchemaValue } from '../../schema/http/json-schema';
import type { Principal } from '../principal';
import { presentReceipt } from '../../domain/receipts/present';
import { route, type AnyRoute, type HandlerInput } from '../route';

const tags = ['Receipts'];
const notFound = {
  description: "`not_found`: no such receipt or consumer in the caller's project",
  schema: ErrorEnvelope,
};
const badRequest = { description: '`invalid_body`', schema: ErrorEnvelope };
const conflict = {
  description: "`invalid_transition`: the receipt's state refuses this move (details.state, details.move)",
  schema: ErrorEnvelope,
};
// chain.seq is a PostgreSQL integer: a cursor past its range can only mean "from the newest", which the
// caller asks for by leaving it out, so it is refused as invalid_query rather than overflowing the column.
const CHAIN_SEQ_MAX = 2_147_483_647;
const listQuery = {
  ...ReceiptListQuery,
  properties: {
    ...ReceiptListQuery.properties,
    before_seq: { ...ReceiptListQuery.properties.before_seq, maximum: CHAIN_SEQ_MAX },
  },
} as const satisfies JsonSchema;
const scopeOf = (p: Principal) => ({ orgId: p.orgId, projectId: p.projectId, environment: p.environment });

function mover<TBody>(toMove: (body: TBody) => MoveInput) {
  return async ({
    deps,
    principal,
    params,
    body,
  }: HandlerInput<TBody, unknown, { id: string }, Principal>) => {
    const row = await deps.db.transaction((tx) =>
      moveReceipt(tx, deps.config.encryptionKeys, scopeOf(principal), params.id, toMove(body)),
    );
    return { body: presentReceipt(row) };
  };
}

export const receiptRoutes: AnyRoute[] = [
  route({
    method: 'get',
    path: '/v1/consumers/:consumerId/receipts',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'listConsumerReceipts',
    summary: "A consumer's receipts, newest first along its hash chain",
    query: listQuery,
    responses: {
      200: { description: 'Receipts', schema: ReceiptList },
      400: { description: '`invalid_query`', schema: ErrorEnvelope },
      404: notFound,
    },
    async handler({ deps, principal, params, query }) {
      await requireConsumer(deps.db, principal, params.consumerId);
      const rows = await listReceipts(deps.db, principal, params.consumerId, {
        limit: query.limit,
        beforeSeq: query.before_seq,
      });
      const last = rows[rows.length - 1];
      return {
        body: {
          receipts: rows.map(presentReceipt),
          next_before_seq: rows.length === query.limit && last && last.chain_seq > 1 ? last.chain_seq : null,
        },
      };
    },
  }),
  route({
    method: 'get',
    path: '/v1/consumers/receipts/:id',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'getConsumerReceipt',
    summary: 'Retrieve a receipt',
    responses: { 200: { description: 'The receipt', schema: Receipt }, 404: notFound },
    async handler({ deps, principal, params }) {
      return { body: presentReceipt(await getReceipt(deps.db, principal, params.id)) };
    },
  }),
  route({
    method: 'post',
    path: '/v1/consumers/receipts/:id/delivery',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'sealReceiptDelivery',
    summary: 'Seal a delivery proof: moves a paid receipt to delivered',
    description:
      "Sealing the same proof again answers the receipt unchanged. The proof is hashed (JCS, SHA-256) and signed with the receipt's chain hash.",
    body: DeliveryProof,
    responses: {
      200: { description: 'The delivered receipt', schema: Receipt },
      400: badRequest,
      404: notFound,
      409: conflict,
    },
    handler: mover((body: SchemaValue<typeof DeliveryProof>) => ({
      move: 'deliver',
      result: body.result,
      proof: body.proof,
    })),
  }),
  route({
    method: 'post',
    path: '/v1/consumers/receipts/:id/exceptions',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'recordReceiptException',
    summary: 'Record an exception on a paid or delivered receipt',
    body: ReceiptException,
    responses: {
      200: { description: 'The receipt in state exception', schema: Receipt },
      400: badRequest,
      404: notFound,
      409: conflict,
    },
    handler: mover((body: SchemaValue<typeof ReceiptException>) => ({
      move: 'exception',
      code: body.code,
      detail: body.detail,
    })),
  }),
  route({
    method: 'post',
    path: '/v1/consumers/receipts/:id/void',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'voidReceipt',
    summary: 'Void a receipt that was never delivered',
    description:
      'A delivered receipt cannot be voided; record an exception instead. Voiding a voided receipt answers it unchanged.',
    body: ReceiptVoid,
    responses: {
      200: { description: 'The voided receipt', schema: Receipt },
      400: badRequest,
      404: notFound,
      409: conflict,
    },
    handler: mover((body: SchemaValue<typeof ReceiptVoid>) => ({ move: 'void', reason: body.reason })),
  }),
  route({
    method: 'post',
    path: '/v1/consumers/:consumerId/receipt-secret',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'rotateConsumerReceiptSecret',
    summary: "Create or rotate the consumer's receipt secret (shown once)",
    description:
      'Receipts are HMAC-signed (`receipt_sig`) with the newest secret. A consumer without one gets `receipt: null` on its spends.',
    responses: {
      201: { description: 'The new secret, shown this once', schema: ReceiptSecretCreated },
      404: notFound,
    },
    async handler({ deps, principal, params }) {
      const created = await deps.db.transaction(async (tx) => {
        await requireConsumer(tx, principal, params.consumerId);
        return rotateReceiptSecret(tx, deps.config.encryptionKeys, scopeOf(principal), params.consumerId);
      });
      return {
        status: 201,
        body: { consumer_id: params.consumerId, ...created },
        headers: { 'Cache-Control': 'no-store' },
      };
    },
  }),
  // Not public: the spec's public surface is the OAuth operations and the description documents only.
  route({
    method: 'get',
    path: '/v1/receipts/signing-keys',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'getReceiptSigningKeys',
    summary: 'The Ed25519 public keys that sign receipts (JWKS)',
    description:
      'Every key that ever signed a receipt, retired ones included, so any receipt verifies offline. Takes a credential like every other operation.',
    responses: { 200: { description: 'JWKS', schema: SigningKeys } },
    async handler({ deps }) {
      const keys = await publishedSigningKeys(deps.db);
      return {
        body: {
          keys: keys.map((k) => ({
            kty: 'OKP',
            crv: 'Ed25519',
            x: k.public_key,
            kid: k.kid,
            use: 'sig',
            alg: 'EdDSA',
            created_at: k.created_at,
            retired_at: k.retired_at,
          })),
        },
        // Answered to a credential, so shared caches must not keep it; the caller's own cache may.
        headers: { 'Cache-Control': 'private, max-age=300', Vary: 'Authorization' },
      };
    },
  }),
];
