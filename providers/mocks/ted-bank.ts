// The mock TED provider: a real HTTP server that sends TED transfers from a consumer's sub-account
// under an Idempotency-Key and answers status queries. Scripted per reference like the Pix PSP.
// Inbound: a test makes a TED arrive at a sub-account (`receiveInbound`), the bank notices the gateway
// with only the transfer's id (`notifyInbound`), and answers GET /ted/v1/inbound-transfers/{id} with it.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { listen, readJson, sendJson } from './http-kit';
import { arrivals, scriptBook, type RailScript } from './rail-script';
import type { RunningMock } from './running-mock';

export interface MockTedTransfer {
  id: string;
  idempotency_key: string;
  reference: string;
  source_account: string;
  destination: {
    ispb: string;
    branch: string;
    account: string;
    tax_id: string | null;
    name: string | null;
    account_type: string | null;
  };
  amount_minor: string;
  status: 'completed';
  created_at: string;
}

export interface MockTedInbound {
  id: string;
  /** The receiving account: the consumer's sub-account, as the gateway names it to the bank. */
  destination_account: string;
  amount_minor: string;
  payer: { ispb: string; branch: string; account: string; tax_id: string; name: string };
  status: 'completed';
  received_at: string;
}

export interface TedMock extends RunningMock {
  script(reference: string, script: RailScript): void;
  setDefaultScript(script: RailScript): void;
  arrived(reference: string, count?: number): Promise<void>;
  transfers(): MockTedTransfer[];
  requests(): Array<{ reference: string; idempotencyKey: string }>;
  /** A TED arrives at `account`; nothing is noticed until `notifyInbound`. */
  receiveInbound(input: { account: string; amountMinor: bigint; payerName?: string }): MockTedInbound;
  /** POSTs the bank's notice `{event: 'TED_IN', transfer_id}` to `url`; answers the receiver's status. */
  notifyInbound(url: string, transferId: string): Promise<number>;
  /** The next `times` inbound lookups answer 503. */
  failInboundLookups(times: number): void;
  inboundLookups(): string[];
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

export async function startTedMock(options: { port?: number } = {}): Promise<TedMock> {
  const book = scriptBook();
  const arrived = arrivals();
  const byKey = new Map<string, { fingerprint: string; transfer: MockTedTransfer }>();
  const made: MockTedTransfer[] = [];
  const received: Array<{ reference: string; idempotencyKey: string }> = [];
  const timers = new Set<NodeJS.Timeout>();
  const inbound = new Map<string, MockTedInbound>();
  const lookups: string[] = [];
  let lookupFailures = 0;

  const send = async (req: IncomingMessage, res: ServerResponse) => {
    const idempotencyKey = req.headers['idempotency-key'];
    if (typeof idempotencyKey !== 'string' || idempotencyKey === '')
      return sendJson(res, 400, {
        code: 'idempotency_key_required',
        message: 'Send an Idempotency-Key header',
      });
    const body = await readJson(req);
    const destination = (body.destination ?? {}) as Record<string, unknown>;
    const reference = String(body.reference ?? '');
    const fingerprint = JSON.stringify([
      body.source_account,
      destination.ispb,
      destination.branch,
      destination.account,
      body.amount_minor,
    ]);
    received.push({ reference, idempotencyKey });
    arrived.note(reference);
    const previous = byKey.get(idempotencyKey);
    if (previous) {
      if (previous.fingerprint !== fingerprint)
        return sendJson(res, 422, {
          code: 'idempotency_key_reuse',
          message: 'This key was used for another transfer',
        });
      return sendJson(res, 200, previous.transfer);
    }
    if (
      typeof body.amount_minor !== 'string' ||
      !/^[1-9]\d*$/.test(body.amount_minor) ||
      !text(destination.ispb) ||
      !text(destination.account)
    ) {
      return sendJson(res, 400, {
        code: 'invalid_request',
        message: 'amount_minor and destination are required',
      });
    }
    const script = book.take(reference);
    if (script.outcome === 'fail') return sendJson(res, 503, { code: 'unavailable', message: 'try again' });
    if (script.outcome === 'refuse')
      return sendJson(res, 422, {
        code: 'psp_refused',
        reason: script.reason ?? 'account_closed',
        message: 'The receiving bank refused the transfer',
      });
    if (script.outcome === 'lost') return;
    const transfer: MockTedTransfer = {
      id: `ted_${randomBytes(8).toString('hex')}`,
      idempotency_key: idempotencyKey,
      reference,
      source_account: String(body.source_account ?? ''),
      destination: {
        ispb: String(destination.ispb),
        branch: String(destination.branch ?? ''),
        account: String(destination.account),
        tax_id: text(destination.tax_id),
        name: text(destination.name),
        account_type: text(destination.account_type),
      },
      amount_minor: body.amount_minor,
      status: 'completed',
      created_at: new Date().toISOString(),
    };
    byKey.set(idempotencyKey, { fingerprint, transfer });
    made.push(transfer);
    if (script.outcome === 'timeout') return;
    if (script.outcome === 'late') {
      const timer = setTimeout(() => {
        timers.delete(timer);
        sendJson(res, 201, transfer);
      }, script.delayMs);
      timers.add(timer);
      return;
    }
    return sendJson(res, 201, transfer);
  };

  const listening = await listen(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://mock');
    if (req.method === 'POST' && url.pathname === '/ted/v1/transfers') return send(req, res);
    if (req.method === 'GET' && url.pathname === '/ted/v1/transfers') {
      const found = byKey.get(url.searchParams.get('idempotency_key') ?? '');
      return found
        ? sendJson(res, 200, found.transfer)
        : sendJson(res, 404, { code: 'not_found', message: 'No transfer under this key' });
    }
    const inboundLookup = /^\/ted\/v1\/inbound-transfers\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && inboundLookup) {
      const id = decodeURIComponent(inboundLookup[1]);
      lookups.push(id);
      if (lookupFailures > 0) {
        lookupFailures--;
        return sendJson(res, 503, { code: 'unavailable', message: 'try again' });
      }
      const found = inbound.get(id);
      return found
        ? sendJson(res, 200, found)
        : sendJson(res, 404, { code: 'not_found', message: 'No inbound transfer with this id' });
    }
    return sendJson(res, 404, { code: 'not_found', message: 'No such route' });
  }, options.port);

  return {
    url: listening.url,
    async stop() {
      for (const timer of timers) clearTimeout(timer);
      await listening.stop();
    },
    script: (reference, script) => book.set(reference, script),
    setDefaultScript: (script) => book.setDefault(script),
    arrived: (reference, count) => arrived.wait(reference, count),
    transfers: () => [...made],
    requests: () => [...received],
    receiveInbound(input) {
      const transfer: MockTedInbound = {
        id: `tedin_${randomBytes(8).toString('hex')}`,
        destination_account: input.account,
        amount_minor: input.amountMinor.toString(),
        payer: {
          ispb: '60746948',
          branch: '0001',
          account: '123456',
          tax_id: '11222333000181',
          name: input.payerName ?? 'Pagador Ltda',
        },
        status: 'completed',
        received_at: new Date().toISOString(),
      };
      inbound.set(transfer.id, transfer);
      return transfer;
    },
    async notifyInbound(url, transferId) {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ event: 'TED_IN', transfer_id: transferId }),
      });
      await response.arrayBuffer();
      return response.status;
    },
    failInboundLookups: (times) => void (lookupFailures = times),
    inboundLookups: () => [...lookups],
  };
}
