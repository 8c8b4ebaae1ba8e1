// Mandates: read, revoke, amend (narrowing only, re-signed), verify a presented mandate, read its
// consent log; and, for operators, rotation of the HMAC secret that signs them.
import { findConsentById } from '../../domain/consents/consents';
import { ApiError } from '../../domain/errors';
import { listConsentRecordsForMandate } from '../../domain/mandates/consent-records';
import { amendMandate, revokeMandate } from '../../domain/mandates/lifecycle';
import { findMandate } from '../../domain/mandates/mandates';
import { listSigningSecretVersions, rotateSigningSecret } from '../../domain/mandates/secrets';
import { verifyPresentedMandate } from '../../domain/mandates/verify';
import { ErrorEnvelope } from '../../schema/http/common';
import { ConsentRecord } from '../../schema/http/consumers';
import {
  Mandate,
  MandateAmend,
  MandateRevoke,
  MandateTransitionResult,
  MandateVerified,
  MandateVerify,
  SecretRotated,
} from '../../schema/http/mandates';
import type { AppDeps } from '../deps';
import { mandateTimer, signalLifecycle } from '../../orchestration/consents';
import { actorOf, type Principal } from '../principal';
import { presentConsentRecord } from '../presenters/consumer';
import { presentMandate, presentVerifiedMandate } from '../presenters/mandate';
import type { TransitionResult } from '../../domain/mandates/lifecycle';
import { route, type AnyRoute } from '../route';
import { tenantOf } from './consumers';

const tags = ['Mandates'];
const envelope = (description: string) => ({ description, schema: ErrorEnvelope });
const mandateNotFound = () => new ApiError(404, 'mandate_not_found', 'No such mandate in this project');
const stateRefusals = {
  404: envelope('`mandate_not_found`'),
  409: envelope(
    '`mandate_already_revoked`, `invalid_transition` (details.reason), `transition_conflict` (another change is in progress)',
  ),
  410: envelope('`mandate_already_expired`'),
};

async function tellLifecycle(
  deps: AppDeps,
  result: TransitionResult,
  kind: 'amended' | 'revoked',
): Promise<void> {
  const consent = await findConsentById(deps.db, result.mandate.consent_id);
  if (!consent) return;
  await signalLifecycle(
    deps.temporal,
    deps.log,
    consent,
    result.mandate,
    kind === 'amended' ? { kind, timer: mandateTimer(result.mandate) } : { kind },
  );
}

const transitionBody = (result: TransitionResult) => ({
  mandate: presentMandate(result.mandate),
  consent_record: presentConsentRecord(result.record),
});
const context = (principal: Principal, ip: string, reason?: string) => ({
  actor: actorOf(principal),
  ipAddress: ip || null,
  reason,
});

export const mandateRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/v1/mandates/verify',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'verifyMandate',
    summary: 'Check a presented mandate and signature, as a spend would',
    responses: {
      200: {
        description: 'The mandate verifies and is active; its caps and what is left',
        schema: MandateVerified,
      },
      400: envelope('`invalid_body`'),
      403: envelope(
        '`mandate_signature_invalid` (details.reason: signature_mismatch, superseded_revision, not_canonicalizable), `agent_mismatch`',
      ),
      404: envelope('`mandate_not_found`'),
      409: envelope('`mandate_not_active` (details.status)'),
      410: envelope('`mandate_already_expired`'),
    },
    body: MandateVerify,
    async handler({ deps, principal, body }) {
      const verified = await verifyPresentedMandate(
        deps.db,
        deps.config.encryptionKeys,
        tenantOf(principal),
        {
          mandate: body.mandate,
          signature: body.signature,
          agentId: body.agent_id,
        },
      );
      return { body: presentVerifiedMandate(verified) };
    },
  }),
  route({
    method: 'get',
    path: '/v1/mandates/:id',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'getMandate',
    summary: 'Retrieve a mandate with its signed document and signature',
    responses: { 200: { description: 'The mandate', schema: Mandate }, 404: envelope('`mandate_not_found`') },
    async handler({ deps, principal, params }) {
      const row = await findMandate(deps.db, tenantOf(principal), params.id);
      if (!row) throw mandateNotFound();
      return { body: presentMandate(row) };
    },
  }),
  route({
    method: 'get',
    path: '/v1/mandates/:id/consent-records',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'listMandateConsentRecords',
    summary: "The mandate's consent log: its grant, then amendments and revocation, oldest first",
    responses: {
      200: {
        description: 'Consent records',
        schema: {
          type: 'object',
          required: ['consent_records'],
          properties: { consent_records: { type: 'array', items: ConsentRecord } },
        },
      },
      404: envelope('`mandate_not_found`'),
    },
    async handler({ deps, principal, params }) {
      const tenant = tenantOf(principal);
      if (!(await findMandate(deps.db, tenant, params.id))) throw mandateNotFound();
      return {
        body: {
          consent_records: (await listConsentRecordsForMandate(deps.db, tenant, params.id)).map(
            presentConsentRecord,
          ),
        },
      };
    },
  }),
  route({
    method: 'post',
    path: '/v1/mandates/:id/revoke',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'revokeMandate',
    summary: 'Revoke a mandate: final, appends a `revoke` consent record',
    body: MandateRevoke,
    responses: {
      200: { description: 'Revoked', schema: MandateTransitionResult },
      400: envelope('`invalid_body`'),
      ...stateRefusals,
    },
    async handler({ deps, principal, params, body, ctx }) {
      const result = await revokeMandate(
        deps.db,
        deps.config.encryptionKeys,
        tenantOf(principal),
        params.id,
        context(principal, ctx.ip, body.reason),
      );
      await tellLifecycle(deps, result, 'revoked');
      return { body: transitionBody(result) };
    },
  }),
  route({
    method: 'post',
    path: '/v1/mandates/:id/amend',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'amendMandate',
    summary:
      'Narrow a mandate (lower caps, shorter life, fewer payees); re-signs it and appends an `amend` consent record',
    body: MandateAmend,
    responses: {
      200: {
        description: 'Amended: the new revision and signature; older signatures stop verifying',
        schema: MandateTransitionResult,
      },
      400: envelope('`invalid_body`, `expires_at_in_past`'),
      ...stateRefusals,
    },
    async handler({ deps, principal, params, body, ctx }) {
      const { reason, ...patch } = body;
      const result = await amendMandate(
        deps.db,
        deps.config.encryptionKeys,
        tenantOf(principal),
        params.id,
        patch,
        context(principal, ctx.ip, reason),
      );
      await tellLifecycle(deps, result, 'amended');
      return { body: transitionBody(result) };
    },
  }),
  route({
    method: 'get',
    path: '/v1/ops/mandate-secrets',
    auth: 'operator',
    scope: null,
    tags: ['Operator'],
    operationId: 'listMandateSecrets',
    summary: 'Versions of the mandate signing secret (never the secrets)',
    responses: { 200: { description: 'Versions, oldest first' } },
    async handler({ deps }) {
      return { body: { versions: await listSigningSecretVersions(deps.db) } };
    },
  }),
  route({
    method: 'post',
    path: '/v1/ops/mandate-secrets/rotate',
    auth: 'operator',
    scope: null,
    tags: ['Operator'],
    operationId: 'rotateMandateSecret',
    summary: 'Add a new mandate signing secret version; older versions keep verifying',
    responses: { 201: { description: 'The new version', schema: SecretRotated } },
    async handler({ deps }) {
      return { status: 201, body: await rotateSigningSecret(deps.db, deps.config.encryptionKeys) };
    },
  }),
];
