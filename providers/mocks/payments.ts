// The mock payment provider: a real HTTP server speaking the payments protocol the adapter uses
// (POST /v1/payments with an Idempotency-Key, GET /v1/payments?idempotency_key= for what became of a
// payment whose answer never came, GET /v1/settlements). Tests script each payment by its reference (the
// attempt id): succeed, refuse, time out without paying, pay and never answer, fail once then succeed, or
// hang until released; and can take the status call down.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningMock } from './running-mock';

export type PaymentScript =
  | { outcome: 'succeed' }
  | { outcome: 'refuse'; code?: string }
  | { outcome: 'timeout' }
  /** Pays, but never answers this payment's requests (the retries under its key included). */
  | { outcome: 'paid_timeout' }
  | { outcome: 'fail_once' }
  | { outcome: 'hang' };

export interface MockPayment {
  id: string;
  reference: string;
  amount_minor: string;
  currency: string;
  recipient: string;
  status: 'succeeded';
  created_at: string;
  metadata: Record<string, string>;
}

export interface Settlement {
  payment_id: string;
  reference: string;
  amount_minor: string;
  currency: string;
  settled_at: string;
  metadata: Record<string, string>;
}

export interface PaymentsMock extends RunningMock {
  /** Scripts the outcome of the payment whose reference is given (default: succeed). */
  script(reference: string, script: PaymentScript): void;
  /** Lets a hanging payment answer (it succeeds). */
  release(reference: string): void;
  /** Resolves once a request for this reference has arrived (count: how many). */
  arrived(reference: string, count?: number): Promise<void>;
  /** Payments the provider actually made (one per idempotency key). */
  payments(): MockPayment[];
  /** Every request received, for asserting retries. */
  requests(): Array<{ reference: string; idempotencyKey: string }>;
  /** The idempotency keys the status call was asked about, in order. */
  statusRequests(): string[];
  /** While on, the status call answers 503: the provider cannot say what became of a payment. */
  statusOutage(on: boolean): void;
  /** Adds a settlement record the gateway never asked for, or drops one, to exercise reconciliation. */
  addSettlement(settlement: Settlement): void;
  dropSettlement(paymentId: string): void;
}

interface Stored {
  status: number;
  body: unknown;
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  } catch {
    return {};
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export async function startPaymentsMock(options: { port?: number } = {}): Promise<PaymentsMock> {
  const scripts = new Map<string, PaymentScript>();
  const failedOnce = new Set<string>();
  const stored = new Map<string, Stored>(); // by idempotency key
  const made: MockPayment[] = [];
  const extraSettlements: Settlement[] = [];
  const dropped = new Set<string>();
  const received: Array<{ reference: string; idempotencyKey: string }> = [];
  const hanging = new Map<string, Array<() => void>>();
  const waiters: Array<{ reference: string; count: number; resolve: () => void }> = [];
  const open = new Set<ServerResponse>();
  const statusAsked: string[] = [];
  let statusDown = false;

  const notify = () => {
    for (const waiter of [...waiters]) {
      if (received.filter((r) => r.reference === waiter.reference).length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };

  const pay = (key: string, body: Record<string, unknown>): Stored => {
    const payment: MockPayment = {
      id: `mpay_${randomBytes(8).toString('hex')}`,
      reference: String(body.reference),
      amount_minor: String(body.amount_minor),
      currency: String(body.currency),
      recipient: String(body.recipient),
      status: 'succeeded',
      created_at: new Date().toISOString(),
      metadata: (body.metadata as Record<string, string> | undefined) ?? {},
    };
    made.push(payment);
    const result = { status: 201, body: payment };
    stored.set(key, result);
    return result;
  };

  const server = createServer(async (req, res) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    const url = new URL(req.url ?? '/', 'http://mock');
    if (req.method === 'GET' && url.pathname === '/v1/settlements') {
      const settlements: Settlement[] = made
        .filter((p) => !dropped.has(p.id))
        .map((p) => ({
          payment_id: p.id,
          reference: p.reference,
          amount_minor: p.amount_minor,
          currency: p.currency,
          settled_at: p.created_at,
          metadata: p.metadata,
        }));
      return send(res, 200, { settlements: [...settlements, ...extraSettlements] });
    }
    if (req.method === 'GET' && url.pathname === '/v1/payments') {
      const asked = url.searchParams.get('idempotency_key') ?? '';
      statusAsked.push(asked);
      if (statusDown)
        return send(res, 503, { error: { code: 'temporarily_unavailable', message: 'Try again' } });
      const found = stored.get(asked);
      return found
        ? send(res, found.status === 201 ? 200 : found.status, found.body)
        : send(res, 404, { error: { code: 'not_found', message: 'No payment under this key' } });
    }
    if (req.method !== 'POST' || url.pathname !== '/v1/payments')
      return send(res, 404, { error: { code: 'not_found', message: 'No such route' } });
    const key = req.headers['idempotency-key'];
    if (typeof key !== 'string' || key === '')
      return send(res, 400, {
        error: { code: 'idempotency_key_required', message: 'Send an Idempotency-Key header' },
      });
    const body = await readJson(req);
    const reference = String(body.reference ?? '');
    received.push({ reference, idempotencyKey: key });
    notify();
    const script = scripts.get(reference) ?? { outcome: 'succeed' };
    if (script.outcome === 'paid_timeout') {
      if (!stored.has(key)) pay(key, body);
      return; // paid; the answer never comes, to this request or any retry of it
    }
    const previous = stored.get(key);
    if (previous) return send(res, previous.status, previous.body);
    switch (script.outcome) {
      case 'timeout':
        return; // never answers; the connection closes when the client gives up or the mock stops
      case 'hang': {
        const list = hanging.get(reference) ?? [];
        list.push(() => {
          const result = stored.get(key) ?? pay(key, body);
          send(res, result.status, result.body);
        });
        hanging.set(reference, list);
        return;
      }
      case 'fail_once':
        if (!failedOnce.has(reference)) {
          failedOnce.add(reference);
          return send(res, 503, { error: { code: 'temporarily_unavailable', message: 'Try again' } });
        }
        break;
      case 'refuse': {
        const result = {
          status: 402,
          body: {
            error: {
              code: script.code ?? 'payment_refused',
              message: 'The payment was refused by the issuer',
            },
          },
        };
        stored.set(key, result);
        return send(res, result.status, result.body);
      }
      default:
        break;
    }
    const result = pay(key, body);
    return send(res, result.status, result.body);
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    script: (reference, script) => {
      scripts.set(reference, script);
    },
    release: (reference) => {
      scripts.set(reference, { outcome: 'succeed' });
      for (const answer of hanging.get(reference) ?? []) answer();
      hanging.delete(reference);
    },
    arrived: (reference, count = 1) =>
      new Promise<void>((resolve) => {
        waiters.push({ reference, count, resolve });
        notify();
      }),
    payments: () => [...made],
    requests: () => [...received],
    statusRequests: () => [...statusAsked],
    statusOutage: (on) => {
      statusDown = on;
    },
    addSettlement: (settlement) => {
      extraSettlements.push(settlement);
    },
    dropSettlement: (paymentId) => {
      dropped.add(paymentId);
    },
    async stop() {
      for (const res of open) res.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
