// The KYC/BaaS provider adapter: reads an onboarding proposal (the verified document travels as the
// proof that the caller owns it), reads the account opened for a document, and registers the
// account's Pix key under an idempotency key. Failures are typed: the provider failing, and the
// provider refusing the ownership proof, are different answers to the caller.
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

export interface KycProvider {
  proposal(proposalId: string, documentNumber: string): Promise<ProviderProposal>;
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
    async proposal(proposalId, documentNumber) {
      const { status, body } = await call(
        `${baseUrl}/onboarding/v1/proposals/${encodeURIComponent(proposalId)}`,
        { method: 'GET', headers: { 'x-document-number': documentNumber } },
        timeoutMs,
      );
      if (status === 403 && body.code === 'ownership_refused') throw new KycOwnershipRefused();
      if (status !== 200) throw new KycProviderFailed(`KYC provider answered ${status} for the proposal`);
      return { status: text(body.status), documentscopyUrl: text(body.documentscopy_url) };
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
