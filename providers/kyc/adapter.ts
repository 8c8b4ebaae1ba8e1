// The KYC/BaaS provider adapter: creates an onboarding proposal under an idempotency key, reads one
// (the verified document travels as the proof that the caller owns it), reads or opens the account of
// an approved proposal, and registers the account's Pix key under an idempotency key. Failures are
// typed: the provider failing, refusing the ownership proof, and refusing a proposal are different
// answers to the caller.
import type { ProviderProposal } from '../../domain/kyc/status';
import type { Environment } from '../../domain/tenancy/api-key-format';
import { providerEndpoint, type ProviderEndpoints } from '../../domain/providers/endpoints';

export class KycProviderFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KycProviderFailed';
  }
}

/** The provider says this document does not own the proposal. */
export class KycOwnershipRefused extends Error {
  constructor() {
    super('KYC provider refused the ownership proof');
    this.name = 'KycOwnershipRefused';
  }
}

/** The provider will not open a proposal for this person (`code` is the provider's). */
export class KycProposalRefused extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'KycProposalRefused';
  }
}

export interface KycApplicant {
  documentNumber: string;
  name: string;
  birthDate: string | null;
  email: string | null;
  phone: string | null;
  /** Where the provider sends its signed status webhooks. */
  callbackUrl: string;
}

export interface KycProvider {
  createProposal(applicant: KycApplicant, idempotencyKey: string): Promise<{ proposalId: string }>;
  proposal(proposalId: string, documentNumber: string): Promise<ProviderProposal>;
  /** Opens (or finds, the bank keeps one per holder) the account of an approved proposal. */
  openAccount(proposalId: string, idempotencyKey: string): Promise<string>;
  /** The account opened for the document, or null while it cannot be read yet. */
  account(documentNumber: string): Promise<string | null>;
  registerPixKey(account: string, idempotencyKey: string): Promise<{ key: string; type: string }>;
}

async function call(
  url: string,
  init: RequestInit,
  timeoutMs: number,
): Promise<{ status: number; body: Record<string, unknown> }> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
  } catch (error) {
    throw new KycProviderFailed(`KYC provider did not answer: ${(error as Error).message}`);
  }
  const parsed: unknown = await response.json().catch(() => null);
  const body =
    parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  return { status: response.status, body };
}

const text = (value: unknown): string | null =>
  typeof value === 'string' && value.length > 0 ? value : null;

export function kycAdapter(options: { baseUrl: string; timeoutMs: number }): KycProvider {
  const { baseUrl, timeoutMs } = options;
  return {
    async createProposal(applicant, idempotencyKey) {
      const { status, body } = await call(
        `${baseUrl}/onboarding/v1/proposals`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
          body: JSON.stringify({
            document_number: applicant.documentNumber,
            name: applicant.name,
            birth_date: applicant.birthDate,
            email: applicant.email,
            phone: applicant.phone,
            callback_url: applicant.callbackUrl,
          }),
        },
        timeoutMs,
      );
      const proposalId = text(body.proposal_id);
      if ((status === 200 || status === 201) && proposalId) return { proposalId };
      if (status === 422)
        throw new KycProposalRefused(text(body.code) ?? 'refused', text(body.message) ?? 'refused');
      throw new KycProviderFailed(`KYC provider answered ${status} to the proposal`);
    },
    async openAccount(proposalId, idempotencyKey) {
      const { status, body } = await call(
        `${baseUrl}/baas/v1/accounts`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
          body: JSON.stringify({ proposal_id: proposalId }),
        },
        timeoutMs,
      );
      const branch = text(body.branch);
      const number = text(body.number);
      if ((status === 200 || status === 201) && branch && number) return `${branch}/${number}`;
      throw new KycProviderFailed(`KYC provider answered ${status} opening the account`);
    },
    async proposal(proposalId, documentNumber) {
      const { status, body } = await call(
        `${baseUrl}/onboarding/v1/proposals/${encodeURIComponent(proposalId)}`,
        { method: 'GET', headers: { 'x-document-number': documentNumber } },
        timeoutMs,
      );
      if (status === 403 && body.code === 'ownership_refused') throw new KycOwnershipRefused();
      if (status !== 200) throw new KycProviderFailed(`KYC provider answered ${status} for the proposal`);
      return {
        status: text(body.status),
        documentscopyUrl: text(body.documentscopy_url),
        rejectionReason: text(body.rejection_reason),
      };
    },
    async account(documentNumber) {
      const { status, body } = await call(
        `${baseUrl}/baas/v1/accounts?document_number=${encodeURIComponent(documentNumber)}`,
        { method: 'GET' },
        timeoutMs,
      );
      if (status === 404) return null;
      if (status !== 200) throw new KycProviderFailed(`KYC provider answered ${status} for the account`);
      const branch = text(body.branch);
      const number = text(body.number);
      return branch && number ? `${branch}/${number}` : null;
    },
    async registerPixKey(account, idempotencyKey) {
      const { status, body } = await call(
        `${baseUrl}/baas/v1/pix/keys`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
          body: JSON.stringify({ account, key_type: 'EVP' }),
        },
        timeoutMs,
      );
      const key = text(body.key);
      const type = text(body.key_type);
      if ((status !== 200 && status !== 201) || !key || !type)
        throw new KycProviderFailed(`Pix key registration answered ${status}`);
      return { key, type };
    },
  };
}

/** The provider of the caller's environment (PROVIDER_KYC_URL, PROVIDER_KYC_LIVE_URL), or null when none is. */
export function configuredKycProvider(
  config: ProviderEndpoints & { providerTimeoutMs: number },
  environment: Environment,
): KycProvider | null {
  const baseUrl = providerEndpoint(config, 'kyc', environment);
  return baseUrl ? kycAdapter({ baseUrl, timeoutMs: config.providerTimeoutMs }) : null;
}
