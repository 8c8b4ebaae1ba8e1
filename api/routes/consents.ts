// Consents: an agent asks (POST /v1/consents, alias /v1/consents/init), reads a pending consent, and a
// partner backend submits the consumer's confirmation with its credential. The hosted page submits
// through its own route (routes/consent-page.ts), where the token is the credential.
import type Koa from 'koa';
import { findConsentForTenant, insertConsent, newConsentId } from '../../domain/consents/consents';
import { checkIntent } from '../../domain/consents/intent';
import { consentNotFound, submitConsent, tokenRefusal } from '../../domain/consents/submit';
import {
  CONSENT_TOKEN_TTL_SECONDS,
  generateConsentToken,
  isConsentToken,
  tokenDigest,
} from '../../domain/consents/tokens';
import { ApiError } from '../../domain/errors';
import { ErrorEnvelope } from '../../schema/http/common';
import {
  ConsentCreate,
  ConsentCreated,
  ConsentSubmit,
  ConsentSubmitted,
  PendingConsent,
} from '../../schema/http/consents';
import type { AppDeps } from '../deps';
import { mandateTimer, signalLifecycle, startConsentLifecycle } from '../../orchestration/consents';
import { presentPendingConsent, presentSubmitted } from '../presenters/mandate';
import { route, type AnyRoute } from '../route';
import { tenantOf } from './consumers';

const tags = ['Consents'];
const envelope = (description: string) => ({ description, schema: ErrorEnvelope });

/** The hosted page's address: the configured public URL, else the address the caller used. */
export function consentUrl(deps: AppDeps, ctx: Koa.Context, token: string): string {
  // Koa 3's ctx.origin is the Origin header; the request's own scheme and host are what the caller used.
  return `${(deps.config.publicBaseUrl ?? `${ctx.protocol}://${ctx.host}`).replace(/\/+$/, '')}/consent/${token}`;
}

// RFC 9745 / RFC 8594: when the alias was deprecated, and where to go instead.
const ALIAS_DEPRECATED_AT = Date.UTC(2026, 0, 1) / 1000;
const ALIAS_HEADERS = {
  Deprecation: `@${ALIAS_DEPRECATED_AT}`,
  Link: '</v1/consents>; rel="successor-version"',
};

function createConsentRoute(path: string, alias: boolean): AnyRoute {
  return route({
    method: 'post',
    path,
    auth: 'key',
    scope: 'consents:write',
    tags,
    operationId: alias ? 'createConsentInit' : 'createConsent',
    summary: alias
      ? 'Deprecated alias of POST /v1/consents (answers a Deprecation header); switch the path only'
      : 'Ask a consumer to consent: returns a one-shot token and the hosted consent page',
    deprecated: alias,
    body: ConsentCreate,
    responses: {
      201: { description: 'Token issued, valid 24 hours', schema: ConsentCreated },
      400: envelope(
        '`invalid_body` (details.issues): schema, caps that do not nest, a `*` in withdrawal_allowlist, a dda_allowlist entry that is not a CPF or CNPJ',
      ),
    },
    async handler({ deps, principal, body, ctx }) {
      checkIntent(body.intent);
      const token = generateConsentToken();
      const tenant = tenantOf(principal);
      const id = newConsentId();
      // The timer exists before the token does: a token is never issued without its lifecycle.
      const lifecycle = await startConsentLifecycle(
        deps.temporal,
        {
          id,
          token_digest: tokenDigest(token),
          org_id: tenant.orgId,
          project_id: tenant.projectId,
          environment: tenant.environment,
        },
        CONSENT_TOKEN_TTL_SECONDS,
      );
      const consent = await deps.db
        .transaction((tx) =>
          insertConsent(tx, tenant, {
            id,
            token,
            keyId: principal.keyId,
            agentId: body.agent_id,
            surface: body.surface,
            intent: body.intent,
            callbackUrl: body.callback_url ?? null,
            consumerEmailHint: body.consumer_email_hint ?? null,
          }),
        )
        .catch(async (error: unknown) => {
          await lifecycle.abandon();
          throw error;
        });
      return {
        status: 201,
        headers: alias ? ALIAS_HEADERS : {},
        body: {
          token,
          expires_at: consent.expires_at,
          surface: consent.surface,
          consent_url: consentUrl(deps, ctx, token),
        },
      };
    },
  });
}

export const consentRoutes: AnyRoute[] = [
  createConsentRoute('/v1/consents', false),
  createConsentRoute('/v1/consents/init', true),
  route({
    method: 'get',
    path: '/v1/consents/:token',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'getConsent',
    summary: "Read a pending consent of the caller's project",
    responses: {
      200: { description: 'The pending consent', schema: PendingConsent },
      404: envelope("`not_found`: unknown token, or another project's"),
      409: envelope('`consent_token_consumed` (details.mandate_id)'),
      410: envelope('`consent_token_expired`'),
    },
    async handler({ deps, principal, params, ctx }) {
      if (!isConsentToken(params.token)) throw consentNotFound();
      const row = await findConsentForTenant(deps.db, tenantOf(principal), tokenDigest(params.token));
      if (!row) throw consentNotFound();
      const refusal = tokenRefusal(row);
      if (refusal?.code === 'consent_token_consumed')
        throw new ApiError(409, refusal.code, refusal.message, { mandate_id: row.mandate_id });
      if (refusal) throw refusal;
      return { body: presentPendingConsent(row, params.token, consentUrl(deps, ctx, params.token)) };
    },
  }),
  route({
    method: 'post',
    path: '/v1/consents/:token/submit',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'submitConsent',
    summary: "Submit the consumer's confirmation of a consent of the caller's project: signs the mandate",
    description:
      "Takes a credential of the project the token was issued to; another project's token is `not_found`. " +
      'On `hosted` the body must not carry an attestation (the consumer usually confirms on the hosted page itself); on `partner` it must, with `consumer_id`, and the attestation is signed into the mandate. ' +
      'The mandate, the funding source and the `grant` consent record are written in one transaction; a second submit of the token writes nothing.',
    body: ConsentSubmit,
    responses: {
      201: {
        description: 'The signed mandate; `callback_url` tells the page where the partner backend expects it',
        schema: ConsentSubmitted,
      },
      400: envelope(
        '`invalid_body`, `attestation_not_allowed` (hosted), `attestation_required` (partner), `missing_required_field` (details.field)',
      ),
      404: envelope(
        "`not_found`: unknown token, another project's token, or a consumer_id not in the token's project",
      ),
      409: envelope('`consent_token_consumed`, `funding_rail_mismatch`'),
      410: envelope('`consent_token_expired`'),
    },
    async handler({ deps, principal, params, body, ctx }) {
      const result = await submitConsent(deps.db, deps.config.encryptionKeys, params.token, body, {
        ipAddress: ctx.ip || null,
        tenant: tenantOf(principal),
      });
      await signalLifecycle(deps.temporal, deps.log, result.consent, result.mandate, {
        kind: 'signed',
        timer: mandateTimer(result.mandate),
      });
      return { status: 201, body: presentSubmitted(result), headers: { 'Cache-Control': 'no-store' } };
    },
  }),
];
