// The mock KYC/BaaS provider: a real HTTP server with onboarding proposals (pending, processing,
// documentscopy pending, approved, rejected, or no status), the ownership proof checked on every read,
// accounts that become readable after an approval, and idempotent Pix key registration. Tests script
// the states and failures and count the calls.
import { randomUUID } from 'node:crypto';
import { startJsonServer } from './json-server';
import type { RunningMock } from './running-mock';

export type MockProposalStatus =
  'PENDING' | 'PROCESSING' | 'PENDING_DOCUMENTSCOPY' | 'APPROVED' | 'REJECTED' | null;

interface MockProposal {
  documentNumber: string;
  status: MockProposalStatus;
}

export interface KycMock extends RunningMock {
  /** Opens a proposal at the provider for a document; it starts PENDING. */
  propose(proposalId: string, documentNumber: string): void;
  setStatus(proposalId: string, status: MockProposalStatus): void;
  /** Makes the account opened for the document readable (an approval without it reads as pending). */
  openAccount(documentNumber: string): { branch: string; number: string };
  /** The next `count` calls to that endpoint answer 500. */
  failNext(endpoint: 'proposal' | 'account' | 'pix', count?: number): void;
  /** Calls received, by endpoint. */
  calls(endpoint: 'proposal' | 'account' | 'pix'): number;
  /** Pix keys registered, one per idempotency key. */
  pixKeys(): Array<{ account: string; key: string; idempotencyKey: string }>;
}

export async function startKycMock(options: { port?: number } = {}): Promise<KycMock> {
  const proposals = new Map<string, MockProposal>();
  const accounts = new Map<string, { branch: string; number: string }>();
  const keys = new Map<string, { account: string; key: string; idempotencyKey: string }>();
  const failures = { proposal: 0, account: 0, pix: 0 };
  const counts = { proposal: 0, account: 0, pix: 0 };
  const failing = (endpoint: keyof typeof failures) => {
    counts[endpoint] += 1;
    if (failures[endpoint] === 0) return false;
    failures[endpoint] -= 1;
    return true;
  };
  const server = await startJsonServer(({ method, path, query, headers, body }) => {
    const proposal = /^\/onboarding\/v1\/proposals\/([^/]+)$/.exec(path);
    if (method === 'GET' && proposal) {
      if (failing('proposal')) return { status: 500, body: { code: 'internal_error' } };
      const found = proposals.get(decodeURIComponent(proposal[1]));
      if (!found) return { status: 404, body: { code: 'proposal_not_found' } };
      if (headers['x-document-number'] !== found.documentNumber)
        return {
          status: 403,
          body: { code: 'ownership_refused', message: 'document does not own proposal' },
        };
      return {
        status: 200,
        body: {
          proposal_id: decodeURIComponent(proposal[1]),
          ...(found.status === null ? {} : { status: found.status }),
          documentscopy_url:
            found.status === 'PENDING_DOCUMENTSCOPY'
              ? `https://kyc.provider.test/documentscopy/${encodeURIComponent(proposal[1])}`
              : null,
        },
      };
    }
    if (method === 'GET' && path === '/baas/v1/accounts') {
      if (failing('account')) return { status: 500, body: { code: 'internal_error' } };
      const account = accounts.get(query.get('document_number') ?? '');
      return account
        ? { status: 200, body: { ...account, status: 'ACTIVE' } }
        : { status: 404, body: { code: 'account_not_found' } };
    }
    if (method === 'POST' && path === '/baas/v1/pix/keys') {
      if (failing('pix')) return { status: 500, body: { code: 'dict_unavailable' } };
      const idempotencyKey = String(headers['idempotency-key'] ?? '');
      const input = (body ?? {}) as Record<string, unknown>;
      if (!idempotencyKey || typeof input.account !== 'string')
        return { status: 400, body: { code: 'invalid_request' } };
      let registered = keys.get(idempotencyKey);
      if (!registered) {
        registered = { account: input.account, key: randomUUID(), idempotencyKey };
        keys.set(idempotencyKey, registered);
      }
      return { status: 201, body: { key: registered.key, key_type: 'EVP', account: registered.account } };
    }
    return { status: 404, body: { code: 'not_found' } };
  }, options.port);
  return {
    ...server,
    propose(proposalId, documentNumber) {
      proposals.set(proposalId, { documentNumber, status: 'PENDING' });
    },
    setStatus(proposalId, status) {
      const found = proposals.get(proposalId);
      if (!found) throw new Error(`no mock proposal ${proposalId}`);
      found.status = status;
    },
    openAccount(documentNumber) {
      const account = { branch: '0001', number: String(accounts.size + 100001).padStart(8, '0') };
      accounts.set(documentNumber, account);
      return account;
    },
    failNext(endpoint, count = 1) {
      failures[endpoint] += count;
    },
    calls: (endpoint) => counts[endpoint],
    pixKeys: () => [...keys.values()],
  };
}
