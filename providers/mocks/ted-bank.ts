// The mock TED provider: a real HTTP server that sends TED transfers from a consumer's sub-account
// under an Idempotency-Key and answers status queries. Scripted per reference like the Pix PSP.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { listen, readJson, sendJson } from './http-kit';
import { arrivals, scriptBook, type RailScript } from './rail-script';
import type { RunningMock } from './index';

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

export interface TedMock extends RunningMock {
  script(reference: string, script: RailScript): void;
  setDefaultScript(script: RailScript): void;
  arrived(reference: string, count?: number): Promise<void>;
  transfers(): MockTedTransfer[];
  requests(): Array<{ reference: string; idempotencyKey: string }>;
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

export async function startTedMock(options: { port?: number } = {}): Promise<TedMock> {
  const book = scriptBook();
  const arrived = arrivals();
  const byKey = new Map<string, { fingerprint: string; transfer: MockTedTransfer }>();
  const made: MockTedTransfer[] = [];
  const received: Array<{ reference: string; idempotencyKey: string }> = [];
  const timers = new Set<NodeJS.Timeout>();

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
  };
}
