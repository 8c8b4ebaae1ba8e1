// KYC onboarding: starting one for a consumer (the proposal is created at the provider, then one
// workflow per proposal follows it: orchestration/kyc.ts), reading it, the provider's signed status
// webhooks, and the deprecated status poll. The poll checks the document claim before anything else; a
// proposal whose onboarding the gateway started is answered from what its workflow recorded, one opened
// elsewhere is still refreshed here (the provider asked, an approval given its account, one funding
// source and, lazily, its Pix key), so repeated polls after an approval create nothing new. A missing
// claim is a bare 400 (spec), not the envelope.
import type { AppDeps } from '../deps';
import type { Principal } from '../principal';
import { ApiError } from '../../domain/errors';
import { findConsumer } from '../../domain/consumers/consumers';
import { documentKind } from '../../domain/consumers/document-number';
import type { Tenant } from '../../domain/consumers/tenant';
import {
  attachFundingSource,
  countRejectedOnboardings,
  findProposal,
  findStandingOnboarding,
  forgetWebhookReceipt,
  noteWebhookReceipt,
  recordOnboarding,
  recordPixKey,
  recordPixKeyError,
  recordProviderState,
  type ProposalRow,
} from '../../domain/kyc/proposals';
import { documentDigits, isFinal, kycStatusOf } from '../../domain/kyc/status';
import {
  KYC_SIGNATURE_HEADER,
  KYC_TIMESTAMP_HEADER,
  verifyKycWebhook,
} from '../../domain/kyc/webhook-signature';
import { noteKycProviderNotice, startKycOnboarding, type KycOnboardingScope } from '../../orchestration/kyc';
import type { KycOnboardingInput } from '../../contracts/kyc-messages';
import {
  configuredKycProvider,
  KycOwnershipRefused,
  KycProposalRefused,
  KycProviderFailed,
  type KycProvider,
} from '../../providers/kyc/adapter';
import { ErrorEnvelope } from '../../schema/http/common';
import type { JsonSchema } from '../../schema/http/json-schema';
import {
  KycOnboarding,
  KycOnboardingCreate,
  KycOnboardingParams,
  KycStatus,
  KycStatusParams,
  KycStatusQuery,
  type KycOnboardingCreateBody,
  type KycStatusQueryValues,
} from '../../schema/http/kyc';
import { DEPRECATION_HEADERS } from '../deprecation';
import { publicOrigin } from '../public-origin';
import { route, type AnyRoute, type Reply } from '../route';
import { tenantOf } from './consumers';
import type { Environment } from '../../domain/tenancy/api-key-format';

/** Where the provider sends its signed status webhooks. */
const KYC_WEBHOOK_PATH = '/webhooks/kyc/proposals';
const tags = ['KYC'];
const envelope = (description: string) => ({ description, schema: ErrorEnvelope });

const refuse = (status: number, code: string, message: string, details?: Record<string, unknown>) =>
  new ApiError(status, code, message, details, { ...DEPRECATION_HEADERS });

const bareBadRequest = (message: string): Reply => ({
  status: 400,
  type: 'text/plain',
  body: message,
  headers: { ...DEPRECATION_HEADERS },
});

/** Both provider answers are 502; the message and details.reason say which one it was. */
function providerRefusal(error: unknown): ApiError {
  if (error instanceof KycOwnershipRefused)
    return refuse(
      502,
      'provider_error',
      'The KYC provider refused the proof that this document owns the proposal',
      {
        reason: 'ownership_refused',
      },
    );
  if (error instanceof KycProviderFailed)
    return refuse(502, 'provider_error', 'The KYC provider failed; poll again later', {
      reason: 'provider_failure',
    });
  throw error;
}

function present(row: ProposalRow) {
  return {
    status: row.status,
    account: row.account,
    funding_source_id: row.funding_source_id,
    hosted_url: row.hosted_url,
    pix_key: row.pix_key,
    pix_key_type: row.pix_key_type,
    ...(row.status === 'approved' && !row.pix_key && row.pix_key_error
      ? { pix_key_registration_error: row.pix_key_error }
      : {}),
  };
}

/** Asks the provider where a proposal stands, unless it already reached a final state. */
function providerOf(deps: AppDeps, environment: Environment): KycProvider {
  const provider = configuredKycProvider(deps.config, environment);
  if (!provider) throw providerRefusal(new KycProviderFailed('no KYC provider configured'));
  return provider;
}

async function refresh(deps: AppDeps, row: ProposalRow, environment: Environment): Promise<ProposalRow> {
  if (isFinal(row.status)) return row;
  const provider = providerOf(deps, environment);
  try {
    const reported = await provider.proposal(row.id, row.document_number);
    const account =
      (reported.status ?? '').toUpperCase() === 'APPROVED'
        ? await provider.account(row.document_number)
        : null;
    const status = kycStatusOf(reported, account !== null);
    return await recordProviderState(deps.db, row.id, {
      status,
      hostedUrl: status === 'documentscopy_pending' ? reported.documentscopyUrl : null,
      account,
    });
  } catch (error) {
    throw providerRefusal(error);
  }
}

/** The approved account's Pix key; a failure leaves the account usable and is retried on the next poll. */
async function ensurePixKey(deps: AppDeps, row: ProposalRow, environment: Environment): Promise<ProposalRow> {
  if (row.status !== 'approved' || row.pix_key || !row.account) return row;
  const provider = providerOf(deps, environment);
  try {
    const key = await provider.registerPixKey(row.account, `kyc-pix/${row.id}`);
    return await recordPixKey(deps.db, row.id, key);
  } catch (error) {
    if (!(error instanceof KycProviderFailed)) throw error;
    return recordPixKeyError(
      deps.db,
      row.id,
      'The Pix key could not be registered yet; it is retried on the next poll',
    );
  }
}

const DIGITS_REQUIRED = 'document_number must hold the CPF or CNPJ digits';

async function pollStatus(
  deps: AppDeps,
  principal: Principal,
  proposalId: string,
  query: KycStatusQueryValues,
): Promise<Reply> {
  const claim = documentDigits(query.document_number);
  if (!claim) return bareBadRequest(DIGITS_REQUIRED);
  const tenant = tenantOf(principal);
  const found = await findProposal(deps.db, proposalId);
  if (!found) throw refuse(404, 'not_found', 'Proposal not found');
  // Tenant control: the proposal belongs to one organization and project, and only its keys may poll it.
  if (found.org_id !== tenant.orgId || found.project_id !== tenant.projectId)
    throw refuse(403, 'proposal_forbidden', "This proposal belongs to another organization's project");
  if (claim !== found.document_number)
    throw refuse(403, 'document_mismatch', "document_number is not the proposal's verified document");
  // The caller's consumer counts only when the proposal recorded none.
  const fallback = found.consumer_id ? null : (query.consumer_id ?? null);
  if (fallback && !(await findConsumer(deps.db, tenant, fallback)))
    throw refuse(404, 'not_found', 'Consumer not found');

  // The onboarding's workflow follows the provider: its recorded state is the answer.
  if (found.onboarding_started_at) return { headers: { ...DEPRECATION_HEADERS }, body: present(found) };
  // Each step is skipped once done, so polls after an approval ask nothing and create nothing.
  let row = await refresh(deps, found, tenant.environment);
  const consumerId = row.consumer_id ?? fallback;
  if (row.status === 'approved' && !row.funding_source_id && consumerId)
    row = await attachFundingSource(deps.db, deps.config.encryptionKeys, tenant, row.id, consumerId);
  row = await ensurePixKey(deps, row, tenant.environment);
  return { headers: { ...DEPRECATION_HEADERS }, body: present(row) };
}

/** The onboarding as its replacement read shows it. */
function presentOnboarding(row: ProposalRow) {
  return {
    id: row.id,
    consumer_id: row.consumer_id,
    status: row.status,
    hosted_url: row.hosted_url,
    account: row.account,
    funding_source_id: row.funding_source_id,
    pix_key: row.pix_key,
    pix_key_type: row.pix_key_type,
    pix_key_registration_error: row.status === 'approved' && !row.pix_key ? row.pix_key_error : null,
    rejection_reason: row.rejection_reason,
    document_verified: row.document_verified_at !== null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The onboarding workflow's input and search scope for a proposal, with the configured waits. */
function workflowOf(deps: AppDeps, row: ProposalRow): [KycOnboardingInput, KycOnboardingScope] {
  return [
    {
      proposalId: row.id,
      pollInitialSeconds: deps.config.kyc.pollInitialSeconds,
      pollMaxSeconds: deps.config.kyc.pollMaxSeconds,
      pixRetrySeconds: deps.config.kyc.pixRetrySeconds,
    },
    {
      orgId: row.org_id,
      projectId: row.project_id,
      environment: row.environment,
      consumerId: row.consumer_id ?? undefined,
    },
  ];
}

const invalidBody = (message: string, details: Record<string, unknown>) =>
  new ApiError(400, 'invalid_body', message, details);

/**
 * Opens the proposal at the provider and starts its workflow. The provider's idempotency key names the
 * consumer, the document and how many of the consumer's onboardings were rejected before, so a retried
 * or racing start opens one proposal; a start while one stands for the same document answers it.
 */
async function startOnboarding(
  deps: AppDeps,
  tenant: Tenant,
  body: KycOnboardingCreateBody,
  callbackUrl: string,
): Promise<Reply> {
  const document = body.document_number.replace(/[^0-9]/g, '');
  if (!documentKind(document))
    throw invalidBody('document_number is not a CPF or CNPJ (check digits)', { field: 'document_number' });
  const consumer = await findConsumer(deps.db, tenant, body.consumer_id);
  if (!consumer) throw new ApiError(404, 'not_found', 'Consumer not found');
  if (consumer.document_verified_at && consumer.document !== document)
    throw new ApiError(409, 'consumer_document_mismatch', 'The consumer is verified under another document');
  const standing = async () => {
    const row = await findStandingOnboarding(deps.db, tenant, consumer.id);
    if (row && row.document_number !== document)
      throw new ApiError(409, 'onboarding_exists', 'The consumer has an onboarding in flight or approved', {
        proposal_id: row.id,
      });
    return row;
  };
  let row = await standing();
  let created = false;
  if (!row) {
    const provider = configuredKycProvider(deps.config, tenant.environment);
    if (!provider)
      throw new ApiError(502, 'provider_error', 'No KYC provider serves this environment', {
        reason: 'provider_failure',
      });
    const earlier = await countRejectedOnboardings(deps.db, tenant, consumer.id);
    let proposalId: string;
    try {
      ({ proposalId } = await provider.createProposal(
        {
          documentNumber: document,
          name: body.name,
          birthDate: body.birth_date ?? null,
          email: body.email ?? null,
          phone: body.phone ?? null,
          callbackUrl,
        },
        `kyc-onboard/${tenant.orgId}/${consumer.id}/${document}/${earlier}`,
      ));
    } catch (error) {
      if (error instanceof KycProposalRefused)
        throw new ApiError(
          422,
          'kyc_proposal_refused',
          'The KYC provider will not open an account for this person',
          {
            provider_code: error.code,
          },
        );
      if (error instanceof KycProviderFailed)
        throw new ApiError(
          502,
          'provider_error',
          'The KYC provider failed; nothing was opened, start again',
          {
            reason: 'provider_failure',
          },
        );
      throw error;
    }
    row =
      (await recordOnboarding(deps.db, tenant, {
        proposalId,
        documentNumber: document,
        consumerId: consumer.id,
      })) ?? (await standing());
    if (!row)
      throw new ApiError(409, 'onboarding_exists', 'The consumer has an onboarding in flight or approved');
    created = true;
  }
  // Started again on a repeated call: one workflow per proposal, so a start lost to an outage is made good.
  await startKycOnboarding(
    deps.temporal,
    {
      proposalId: row.id,
      pollInitialSeconds: deps.config.kyc.pollInitialSeconds,
      pollMaxSeconds: deps.config.kyc.pollMaxSeconds,
      pixRetrySeconds: deps.config.kyc.pixRetrySeconds,
    },
    {
      orgId: tenant.orgId,
      projectId: tenant.projectId,
      environment: tenant.environment,
      consumerId: consumer.id,
    },
  );
  return { status: created ? 201 : 200, body: presentOnboarding(row) };
}

const KycWebhookBody = {
  type: 'object',
  properties: {
    event_id: { type: 'string', maxLength: 128 },
    event: { type: 'string', maxLength: 64 },
    proposal_id: { type: 'string', maxLength: 128 },
    status: { type: ['string', 'null'], maxLength: 32 },
  },
} as const satisfies JsonSchema;

export const kycRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/v1/kyc/onboardings',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'startKycOnboarding',
    summary: 'Start a KYC onboarding for a consumer',
    description:
      "Opens a proposal at the KYC provider for the person and document, then follows it (the provider's signed webhooks, " +
      'and asking the provider itself with a doubling wait when none comes) until it is approved or rejected. ' +
      "`documentscopy_pending` carries the provider's `hosted_url`. On approval the account is opened at the bank, the " +
      "consumer gets one `pix-partner` funding source and its document verified, and the account's Pix key is registered " +
      '(retried on its own schedule while `pix_key_registration_error` is set). Events `kyc.onboarding.*` and `kyc.pix_key.*` ' +
      'tell each move. Starting again for the same consumer and document answers the standing onboarding (200).',
    body: KycOnboardingCreate,
    responses: {
      200: {
        description: 'The onboarding already standing for this consumer and document',
        schema: KycOnboarding,
      },
      201: { description: 'Started (`pending`)', schema: KycOnboarding },
      400: envelope(
        '`invalid_body`: schema mismatch (details.issues), or a document whose check digits do not match',
      ),
      404: envelope('`not_found`: no such consumer in this project'),
      409: envelope(
        '`onboarding_exists` (another document is in flight or approved for the consumer; details.proposal_id), `consumer_document_mismatch` (the consumer is verified under another document)',
      ),
      422: envelope(
        '`kyc_proposal_refused`: the provider will not open an account (details.provider_code); nothing started',
      ),
      502: envelope('`provider_error`: the provider failed; nothing started, start again'),
    },
    handler: ({ deps, principal, body, ctx }) =>
      startOnboarding(
        deps,
        tenantOf(principal),
        body,
        `${publicOrigin(deps.config, ctx)}${KYC_WEBHOOK_PATH}`,
      ),
  }),
  route({
    method: 'get',
    path: '/v1/kyc/onboardings/:proposalId',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'getKycOnboarding',
    summary: 'Read a KYC onboarding',
    description:
      'Replaces the deprecated `GET /v1/kyc/onboard/{proposalId}/status`: the same states, read from what the onboarding recorded ' +
      '(nothing is asked of the provider and nothing is created by reading), with the rejection reason and whether the ' +
      "consumer's document was verified.",
    params: KycOnboardingParams,
    responses: {
      200: { description: 'Where the onboarding stands', schema: KycOnboarding },
      404: envelope("`not_found`: unknown, or another organization's or project's proposal"),
    },
    async handler({ deps, principal, params }) {
      const tenant = tenantOf(principal);
      const row = await findProposal(deps.db, params.proposalId);
      if (!row || row.org_id !== tenant.orgId || row.project_id !== tenant.projectId)
        throw new ApiError(404, 'not_found', 'Onboarding not found');
      return { body: presentOnboarding(row) };
    },
  }),
  route({
    method: 'post',
    path: KYC_WEBHOOK_PATH,
    auth: 'public',
    scope: null,
    tags: ['Inbound webhooks'],
    undocumented: true,
    bodyOptional: true,
    operationId: 'kycStatusWebhook',
    summary: "The KYC provider's signed status webhook",
    body: KycWebhookBody,
    responses: {
      200: { description: 'Received' },
      401: envelope('`invalid_signature`: nothing read, nothing changed'),
    },
    async handler({ deps, body, ctx }) {
      const raw = (ctx.state as { rawBody?: Buffer }).rawBody ?? Buffer.alloc(0);
      const check = verifyKycWebhook(
        deps.config.kyc.webhookSecret,
        {
          signature: ctx.get(KYC_SIGNATURE_HEADER) || undefined,
          timestamp: ctx.get(KYC_TIMESTAMP_HEADER) || undefined,
        },
        raw,
        Math.floor(Date.now() / 1000),
      );
      if (!check.ok)
        throw new ApiError(401, 'invalid_signature', 'The webhook signature does not verify', {
          reason: check.reason,
        });
      const ignored = { body: { received: true, applied: false } };
      if (!body.event_id || !body.proposal_id) return ignored;
      const row = await findProposal(deps.db, body.proposal_id);
      if (!row?.onboarding_started_at || isFinal(row.status)) return ignored;
      // A replay or a duplicate delivery of an event already taken is acknowledged, not applied.
      const receipt = { eventId: body.event_id, proposalId: row.id, status: body.status ?? null };
      if (!(await noteWebhookReceipt(deps.db, receipt)))
        return { body: { received: true, applied: false, duplicate: true } };
      try {
        await noteKycProviderNotice(deps.temporal, ...workflowOf(deps, row), {
          eventId: body.event_id,
          status: body.status ?? null,
        });
        return { body: { received: true, applied: true } };
      } catch (error) {
        // Not passed on: the provider's retry of this event must not be taken for a duplicate.
        await forgetWebhookReceipt(deps.db, receipt.eventId);
        throw error;
      }
    },
  }),
  route({
    method: 'get',
    path: '/v1/kyc/onboard/:proposalId/status',
    auth: 'key',
    scope: 'unmapped',
    tags: ['KYC'],
    operationId: 'getKycOnboardingStatus',
    summary: "Poll a KYC onboarding proposal's status",
    description:
      'Deprecated: replaced by `GET /v1/kyc/onboardings/{proposalId}`; answers `Deprecation` and `Link` headers. `document_number` is checked against the proposal before the provider is asked; `consumer_id` counts only when the proposal recorded none. ' +
      'An onboarding started with `POST /v1/kyc/onboardings` is answered from what its workflow recorded (the workflow asks the provider); a proposal opened elsewhere is refreshed from the provider by this call. Polls after an approval create nothing new.',
    deprecated: true,
    params: KycStatusParams,
    query: KycStatusQuery,
    responses: {
      200: { description: 'Where the application stands', schema: KycStatus },
      400: {
        description: 'Bare text body: `document_number` is absent or holds no digits',
        contentType: 'text/plain',
      },
      403: {
        description:
          "`proposal_forbidden` (another organization's or project's proposal), `document_mismatch`",
        schema: ErrorEnvelope,
      },
      404: {
        description: '`not_found`: unknown proposal, or an unknown fallback consumer',
        schema: ErrorEnvelope,
      },
      502: {
        description:
          '`provider_error`: the provider failed (details.reason `provider_failure`) or refused the ownership proof (`ownership_refused`); the message says which',
        schema: ErrorEnvelope,
      },
    },
    onInputError: (error) => {
      const issues = (error.details?.issues ?? []) as Array<{ path: string; keyword: string }>;
      const noDigits =
        issues.length > 0 &&
        issues.every((issue) => issue.path === '/document_number' && issue.keyword === 'pattern');
      return bareBadRequest(noDigits ? DIGITS_REQUIRED : 'document_number is required');
    },
    handler: ({ deps, principal, params, query }) => pollStatus(deps, principal, params.proposalId, query),
  }),
];
