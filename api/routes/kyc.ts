// The deprecated KYC onboarding status poll. The document claim is checked before the provider is
// asked; an approval records the account, one funding source and, lazily, the account's Pix key, so
// repeated polls after it create nothing new. A missing claim is a bare 400 (spec), not the envelope.
import type { AppDeps } from '../deps';
import type { Principal } from '../principal';
import { ApiError, notFound } from '../../domain/errors';
import { findConsumer } from '../../domain/consumers/consumers';
import {
  attachFundingSource,
  findProposal,
  recordPixKey,
  recordPixKeyError,
  recordProviderState,
  type ProposalRow,
} from '../../domain/kyc/proposals';
import { documentDigits, isFinal, kycStatusOf } from '../../domain/kyc/status';
import {
  configuredKycProvider,
  KycOwnershipRefused,
  KycProviderFailed,
  type KycProvider,
} from '../../providers/kyc/adapter';
import { ErrorEnvelope } from '../../schema/http/common';
import { KycStatus, KycStatusParams, KycStatusQuery, type KycStatusQueryValues } from '../../schema/http/kyc';
import { DEPRECATION_HEADERS } from '../deprecation';
import { route, type AnyRoute, type Reply } from '../route';
import { tenantOf } from './consumers';
import type { Environment } from '../../domain/tenancy/api-key-format';

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

  // Each step is skipped once done, so polls after an approval ask nothing and create nothing.
  let row = await refresh(deps, found, tenant.environment);
  const consumerId = row.consumer_id ?? fallback;
  if (row.status === 'approved' && !row.funding_source_id && consumerId)
    row = await attachFundingSource(deps.db, deps.config.encryptionKeys, tenant, row.id, consumerId);
  row = await ensurePixKey(deps, row, tenant.environment);
  return { headers: { ...DEPRECATION_HEADERS }, body: present(row) };
}

export const kycRoutes: AnyRoute[] = [
  route<unknown, KycStatusQueryValues, { proposalId: string }, 'key'>({
    method: 'get',
    path: '/v1/kyc/onboard/:proposalId/status',
    auth: 'key',
    scope: 'unmapped',
    tags: ['KYC'],
    operationId: 'getKycOnboardingStatus',
    summary: "Poll a KYC onboarding proposal's status",
    description:
      'Deprecated: answers `Deprecation` and `Link` headers. `document_number` is checked against the proposal before the provider is asked; `consumer_id` counts only when the proposal recorded none. Polls after an approval create nothing new.',
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
