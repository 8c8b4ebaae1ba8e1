// The mock KYC/BaaS provider: a real HTTP server shaped like a Brazilian onboarding-and-banking API.
// Onboarding proposals are created under an Idempotency-Key (the same key answers the same proposal),
// move through PENDING, PROCESSING, PENDING_DOCUMENTSCOPY (the holder finishes the document check on the
// provider's hosted page), APPROVED or REJECTED (with a reason), and each move is announced by a signed
// webhook (see domain/kyc/webhook-signature.ts) to the proposal's callback_url. Reads check the ownership
// proof (the document) on every call. An approved proposal's account is opened at the bank (one per
// document, idempotent) and its Pix key registered under an idempotency key.
//
// Tests script each document: approve, reject, ask for the document check, hold, or refuse the create;
// after a delay; with each webhook sent, lost or duplicated. Without a script, the sandbox reads the
// person's name, as provider sandboxes do: a name holding "reject", "documentscopy", "lost webhook",
// "duplicate webhook" or "slow" takes that path; any other name is approved after a short wait.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEV_KYC_WEBHOOK_SECRET } from '../../runtime/config';
import {
  KYC_SIGNATURE_HEADER,
  KYC_TIMESTAMP_HEADER,
  signKycWebhook,
} from '../../domain/kyc/webhook-signature';
import { listen, readJson, sendJson } from './http-kit';
import type { RunningMock } from './running-mock';

export type MockProposalStatus =
  'PENDING' | 'PROCESSING' | 'PENDING_DOCUMENTSCOPY' | 'APPROVED' | 'REJECTED' | null;

/** What happens to the webhook announcing a move: sent once, never sent, or sent twice (same event id). */
export type WebhookMode = 'send' | 'lose' | 'duplicate';

/**
 * How the provider treats one document's proposal once created:
 *   approve       – APPROVED after `delayMs`
 *   reject        – REJECTED after `delayMs` with `reason`
 *   documentscopy – PENDING_DOCUMENTSCOPY after `delayMs`; once the holder finishes the hosted check,
 *                   PROCESSING, then APPROVED after `delayMs`
 *   hold          – stays PENDING until the test moves it (`setStatus`)
 *   refuse        – the create is answered 422 and nothing is opened
 * `webhook` applies to the final move (the others are sent).
 */
export interface KycScript {
  outcome: 'approve' | 'reject' | 'documentscopy' | 'hold' | 'refuse';
  delayMs?: number;
  webhook?: WebhookMode;
  reason?: string;
}

interface MockProposal {
  id: string;
  documentNumber: string;
  status: MockProposalStatus;
  rejectionReason: string | null;
  callbackUrl: string | null;
  name: string | null;
  script: KycScript;
}

export interface KycWebhookSent {
  eventId: string;
  proposalId: string;
  status: MockProposalStatus;
  /** The receiver's answer, null when it could not be reached; `lost` webhooks are never sent. */
  answered: number | null;
  lost: boolean;
}

type Endpoint = 'create' | 'proposal' | 'account' | 'open' | 'pix';

export interface KycMock extends RunningMock {
  webhookSecret: string;
  /** Opens a proposal at the provider for a document, as another channel would; it starts PENDING. */
  propose(proposalId: string, documentNumber: string): void;
  /** How proposals created later for this document behave. */
  script(documentNumber: string, script: KycScript): void;
  /** Moves a proposal now; one with a callback hears of it by webhook, sent in the background. */
  setStatus(proposalId: string, status: MockProposalStatus): void;
  /** Moves a proposal now and resolves once its webhook was answered (or lost). */
  advance(
    proposalId: string,
    status: MockProposalStatus,
    options?: { webhook?: WebhookMode; reason?: string },
  ): Promise<void>;
  /** The holder finishes the hosted document check (what the hosted page's button does). */
  completeDocumentscopy(proposalId: string): Promise<void>;
  /** Makes the account opened for the document readable (an approval without it reads as pending). */
  openAccount(documentNumber: string): { branch: string; number: string };
  /** The next `count` calls to that endpoint answer 500. */
  failNext(endpoint: Endpoint, count?: number): void;
  /** Calls received, by endpoint. */
  calls(endpoint: Endpoint): number;
  /** Accounts opened at the bank, one per document. */
  accounts(): Array<{ documentNumber: string; branch: string; number: string }>;
  /** Pix keys registered, one per idempotency key. */
  pixKeys(): Array<{ account: string; key: string; idempotencyKey: string }>;
  proposals(): Array<{ id: string; documentNumber: string; status: MockProposalStatus }>;
  webhooks(): KycWebhookSent[];
  /** Sends an already sent webhook again, byte for byte (a replay); answers the receiver's status. */
  replay(eventId: string): Promise<number | null>;
}

/** The sandbox's reading of a person's name when no test scripted the document. */
function sandboxScript(name: string | null): KycScript {
  const lower = (name ?? '').toLowerCase();
  if (lower.includes('reject'))
    return { outcome: 'reject', delayMs: 1_000, reason: 'document_data_mismatch' };
  if (lower.includes('documentscopy')) return { outcome: 'documentscopy', delayMs: 1_000 };
  if (lower.includes('lost webhook')) return { outcome: 'approve', delayMs: 1_000, webhook: 'lose' };
  if (lower.includes('duplicate webhook'))
    return { outcome: 'approve', delayMs: 1_000, webhook: 'duplicate' };
  if (lower.includes('slow')) return { outcome: 'approve', delayMs: 30_000 };
  return { outcome: 'approve', delayMs: 2_000 };
}

const HOSTED_PAGE = (id: string) => `<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8"><title>Documentoscopia</title></head>
<body><h1>Verificação de documento</h1><p>Proposta ${id.replace(/[^0-9A-Za-z_-]/g, '')}</p>
<form method="post"><button type="submit">Enviar documento</button></form></body></html>`;

export async function startKycMock(
  options: { port?: number; webhookSecret?: string } = {},
): Promise<KycMock> {
  const secret = options.webhookSecret ?? DEV_KYC_WEBHOOK_SECRET;
  const proposals = new Map<string, MockProposal>();
  const created = new Map<string, string>(); // idempotency key → proposal id
  const scripts = new Map<string, KycScript>();
  const accounts = new Map<string, { branch: string; number: string }>();
  const keys = new Map<string, { account: string; key: string; idempotencyKey: string }>();
  const sent: KycWebhookSent[] = [];
  const bodies = new Map<string, { url: string; body: string }>();
  const timers = new Set<NodeJS.Timeout>();
  const failures: Record<Endpoint, number> = { create: 0, proposal: 0, account: 0, open: 0, pix: 0 };
  const counts: Record<Endpoint, number> = { create: 0, proposal: 0, account: 0, open: 0, pix: 0 };
  const failing = (endpoint: Endpoint) => {
    counts[endpoint] += 1;
    if (failures[endpoint] === 0) return false;
    failures[endpoint] -= 1;
    return true;
  };
  let baseUrl = '';
  const hostedUrl = (id: string) => `${baseUrl}/documentscopy/${encodeURIComponent(id)}`;

  const post = async (url: string, body: string): Promise<number | null> => {
    const timestamp = Math.floor(Date.now() / 1000);
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [KYC_SIGNATURE_HEADER]: signKycWebhook(secret, timestamp, body),
          [KYC_TIMESTAMP_HEADER]: String(timestamp),
        },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      await response.arrayBuffer();
      return response.status;
    } catch {
      return null;
    }
  };

  const announce = async (proposal: MockProposal, mode: WebhookMode) => {
    if (!proposal.callbackUrl) return;
    const eventId = `kev_${randomUUID()}`;
    const body = JSON.stringify({
      event_id: eventId,
      event: 'proposal.status_changed',
      proposal_id: proposal.id,
      status: proposal.status,
      occurred_at: new Date().toISOString(),
    });
    bodies.set(eventId, { url: proposal.callbackUrl, body });
    const record: KycWebhookSent = {
      eventId,
      proposalId: proposal.id,
      status: proposal.status,
      answered: null,
      lost: mode === 'lose',
    };
    sent.push(record);
    if (mode === 'lose') return;
    record.answered = await post(proposal.callbackUrl, body);
    if (mode === 'duplicate') record.answered = await post(proposal.callbackUrl, body);
  };

  const move = async (
    proposal: MockProposal,
    status: MockProposalStatus,
    mode: WebhookMode = 'send',
    reason?: string,
  ) => {
    proposal.status = status;
    proposal.rejectionReason = status === 'REJECTED' ? (reason ?? 'rejected_by_policy') : null;
    await announce(proposal, mode);
  };

  const later = (delayMs: number, run: () => Promise<unknown>) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      void run();
    }, delayMs);
    timers.add(timer);
  };

  const follow = (proposal: MockProposal) => {
    const { script } = proposal;
    const delay = script.delayMs ?? 0;
    if (script.outcome === 'approve') later(delay, () => move(proposal, 'APPROVED', script.webhook));
    else if (script.outcome === 'reject')
      later(delay, () => move(proposal, 'REJECTED', script.webhook, script.reason));
    else if (script.outcome === 'documentscopy') later(delay, () => move(proposal, 'PENDING_DOCUMENTSCOPY'));
  };

  const finishDocumentscopy = async (proposal: MockProposal) => {
    if (proposal.status !== 'PENDING_DOCUMENTSCOPY') return false;
    await move(proposal, 'PROCESSING');
    later(proposal.script.delayMs ?? 0, () => move(proposal, 'APPROVED', proposal.script.webhook));
    return true;
  };

  const create = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readJson(req);
    if (failing('create')) return sendJson(res, 500, { code: 'internal_error', message: 'try again' });
    const idempotencyKey = String(req.headers['idempotency-key'] ?? '');
    const documentNumber = typeof body.document_number === 'string' ? body.document_number : '';
    const name = typeof body.name === 'string' ? body.name : '';
    if (!idempotencyKey || !/^(\d{11}|\d{14})$/.test(documentNumber) || !name)
      return sendJson(res, 400, {
        code: 'invalid_request',
        message: 'Idempotency-Key, document_number and name are required',
      });
    const existing = created.get(idempotencyKey);
    if (existing) {
      const found = proposals.get(existing)!;
      return sendJson(res, 200, { proposal_id: found.id, status: found.status });
    }
    const script = scripts.get(documentNumber) ?? sandboxScript(name);
    if (script.outcome === 'refuse')
      return sendJson(res, 422, {
        code: script.reason ?? 'person_not_eligible',
        message: 'The provider cannot open an account for this person',
      });
    const proposal: MockProposal = {
      id: `prp_${randomUUID()}`,
      documentNumber,
      status: 'PENDING',
      rejectionReason: null,
      callbackUrl: typeof body.callback_url === 'string' ? body.callback_url : null,
      name,
      script,
    };
    proposals.set(proposal.id, proposal);
    created.set(idempotencyKey, proposal.id);
    sendJson(res, 201, { proposal_id: proposal.id, status: proposal.status });
    follow(proposal);
  };

  const read = (req: IncomingMessage, res: ServerResponse, id: string) => {
    if (failing('proposal')) return sendJson(res, 500, { code: 'internal_error' });
    const found = proposals.get(id);
    if (!found) return sendJson(res, 404, { code: 'proposal_not_found' });
    if (req.headers['x-document-number'] !== found.documentNumber)
      return sendJson(res, 403, { code: 'ownership_refused', message: 'document does not own proposal' });
    return sendJson(res, 200, {
      proposal_id: id,
      ...(found.status === null ? {} : { status: found.status }),
      documentscopy_url: found.status === 'PENDING_DOCUMENTSCOPY' ? hostedUrl(id) : null,
      rejection_reason: found.rejectionReason,
    });
  };

  const openAccountFor = (documentNumber: string) => {
    let account = accounts.get(documentNumber);
    if (!account) {
      account = { branch: '0001', number: String(accounts.size + 100001).padStart(8, '0') };
      accounts.set(documentNumber, account);
    }
    return account;
  };

  const open = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readJson(req);
    if (failing('open')) return sendJson(res, 500, { code: 'internal_error' });
    const found = proposals.get(typeof body.proposal_id === 'string' ? body.proposal_id : '');
    if (!req.headers['idempotency-key'] || !found)
      return sendJson(res, 400, {
        code: 'invalid_request',
        message: 'Idempotency-Key and proposal_id are required',
      });
    if (found.status !== 'APPROVED')
      return sendJson(res, 409, { code: 'proposal_not_approved', message: 'The proposal is not approved' });
    // One account per holder: opening it again answers the same account.
    return sendJson(res, 201, { ...openAccountFor(found.documentNumber), status: 'ACTIVE' });
  };

  const registerKey = async (req: IncomingMessage, res: ServerResponse) => {
    const input = await readJson(req);
    if (failing('pix')) return sendJson(res, 500, { code: 'dict_unavailable' });
    const idempotencyKey = String(req.headers['idempotency-key'] ?? '');
    if (!idempotencyKey || typeof input.account !== 'string')
      return sendJson(res, 400, { code: 'invalid_request' });
    let registered = keys.get(idempotencyKey);
    if (!registered) {
      registered = { account: input.account, key: randomUUID(), idempotencyKey };
      keys.set(idempotencyKey, registered);
    }
    return sendJson(res, 201, { key: registered.key, key_type: 'EVP', account: registered.account });
  };

  const hosted = async (req: IncomingMessage, res: ServerResponse, id: string) => {
    const found = proposals.get(id);
    if (!found) return sendJson(res, 404, { code: 'proposal_not_found' });
    if (req.method === 'POST') await finishDocumentscopy(found);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(req.method === 'POST' ? '<!doctype html><p>Documento enviado.</p>' : HOSTED_PAGE(id));
  };

  const listening = await listen(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://mock');
    const path = url.pathname;
    if (req.method === 'POST' && path === '/onboarding/v1/proposals') return create(req, res);
    const proposal = /^\/onboarding\/v1\/proposals\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && proposal) return read(req, res, decodeURIComponent(proposal[1]));
    const page = /^\/documentscopy\/([^/]+)$/.exec(path);
    if (page && (req.method === 'GET' || req.method === 'POST'))
      return hosted(req, res, decodeURIComponent(page[1]));
    if (req.method === 'GET' && path === '/baas/v1/accounts') {
      if (failing('account')) return sendJson(res, 500, { code: 'internal_error' });
      const account = accounts.get(url.searchParams.get('document_number') ?? '');
      return account
        ? sendJson(res, 200, { ...account, status: 'ACTIVE' })
        : sendJson(res, 404, { code: 'account_not_found' });
    }
    if (req.method === 'POST' && path === '/baas/v1/accounts') return open(req, res);
    if (req.method === 'POST' && path === '/baas/v1/pix/keys') return registerKey(req, res);
    return sendJson(res, 404, { code: 'not_found' });
  }, options.port);
  baseUrl = listening.url;

  const byId = (proposalId: string): MockProposal => {
    const found = proposals.get(proposalId);
    if (!found) throw new Error(`no mock proposal ${proposalId}`);
    return found;
  };

  return {
    url: listening.url,
    webhookSecret: secret,
    async stop() {
      for (const timer of timers) clearTimeout(timer);
      await listening.stop();
    },
    propose(proposalId, documentNumber) {
      proposals.set(proposalId, {
        id: proposalId,
        documentNumber,
        status: 'PENDING',
        rejectionReason: null,
        callbackUrl: null,
        name: null,
        script: { outcome: 'hold' },
      });
    },
    script: (documentNumber, script) => void scripts.set(documentNumber, script),
    setStatus(proposalId, status) {
      void move(byId(proposalId), status);
    },
    advance: (proposalId, status, moveOptions = {}) =>
      move(byId(proposalId), status, moveOptions.webhook, moveOptions.reason),
    async completeDocumentscopy(proposalId) {
      if (!(await finishDocumentscopy(byId(proposalId))))
        throw new Error(`mock proposal ${proposalId} is not waiting for its document check`);
    },
    openAccount: openAccountFor,
    failNext(endpoint, count = 1) {
      failures[endpoint] += count;
    },
    calls: (endpoint) => counts[endpoint],
    accounts: () => [...accounts].map(([documentNumber, account]) => ({ documentNumber, ...account })),
    pixKeys: () => [...keys.values()],
    proposals: () =>
      [...proposals.values()].map((p) => ({ id: p.id, documentNumber: p.documentNumber, status: p.status })),
    webhooks: () => [...sent],
    async replay(eventId) {
      const original = bodies.get(eventId);
      if (!original) throw new Error(`no webhook ${eventId}`);
      return post(original.url, original.body);
    },
  };
}
