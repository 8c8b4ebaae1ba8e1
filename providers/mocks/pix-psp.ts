// The mock Pix PSP: a real HTTP server with a DICT key lookup, payment initiation under an
// Idempotency-Key, a status query by payment id or idempotency key, and a settlement webhook back to
// the gateway. Each payment's behaviour is scripted by its reference (see rail-script.ts).
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { listen, readJson, sendJson } from './http-kit';
import { arrivals, scriptBook, type RailScript } from './rail-script';
import { cobBook, type CobBook } from './pix-cob';
import type { RunningMock } from './running-mock';

export const PSP_ISPB = '99999008';

export interface DictEntry {
  key: string;
  key_type: string;
  owner: { name: string; tax_id_masked: string };
  account: { ispb: string; branch: string; number: string; type: 'CACC' | 'SVGS' | 'TRAN' };
}

export interface MockPixPayment {
  id: string;
  end_to_end_id: string;
  idempotency_key: string;
  reference: string;
  key: string;
  amount: string;
  txid: string | null;
  /** The consumer's consented funding source the amount was pulled from, when the payment named one. */
  funding_source_id: string | null;
  status: 'processing' | 'settled';
  created_at: string;
  settled_at: string | null;
}

export interface PixPspMock extends RunningMock {
  script(reference: string, script: RailScript): void;
  setDefaultScript(script: RailScript): void;
  /** What a consented funding source can still pay (minor units); null: unlimited. A pull above it is refused (AM04). */
  setFundingLimit(fundingSourceId: string, limitMinor: number | null): void;
  /** Makes DICT answer 404 for this key. */
  removeKey(key: string): void;
  /** Where settlement webhooks go when a payment names no notification_url. */
  setWebhookUrl(url: string | null): void;
  arrived(reference: string, count?: number): Promise<void>;
  /** Payments actually made, one per idempotency key. */
  payments(): MockPixPayment[];
  /** Every request received, on any route (DICT, payments, charges). */
  served(): number;
  /** Every initiation request received (retries included). */
  requests(): Array<{ reference: string; idempotencyKey: string }>;
  webhooksSent(): Array<{ url: string; status: number | null; body: unknown }>;
  /** Dynamic charges (API Pix `cob`): the buyer's payment of one and the notification to the webhook URL. */
  cobs: CobBook;
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
function endToEndId(now: Date): string {
  const stamp = now.toISOString().replace(/[-:T]/g, '').slice(0, 12);
  const tail = [...randomBytes(11)].map((b) => ALNUM[b % ALNUM.length]).join('');
  return `E${PSP_ISPB}${stamp}${tail}`;
}

function synthesizeEntry(key: string): DictEntry {
  const digest = [...Buffer.from(key)].reduce((acc, b) => (acc * 31 + b) % 1_000_000_007, 7);
  const keyType = key.startsWith('+')
    ? 'PHONE'
    : key.includes('@')
      ? 'EMAIL'
      : /^\d{11}$/.test(key)
        ? 'CPF'
        : /^\d{14}$/.test(key)
          ? 'CNPJ'
          : 'EVP';
  return {
    key,
    key_type: keyType,
    owner: {
      name: `Recebedor ${digest % 1000}`,
      tax_id_masked: `***.${String(digest % 1000).padStart(3, '0')}.***-**`,
    },
    account: {
      ispb: '60701190',
      branch: String((digest % 9000) + 1000),
      number: String(digest).padStart(10, '0'),
      type: 'CACC',
    },
  };
}

export async function startPixPspMock(options: { port?: number } = {}): Promise<PixPspMock> {
  const book = scriptBook();
  const arrived = arrivals();
  const removedKeys = new Set<string>();
  const fundingLimits = new Map<string, number>();
  const byKey = new Map<string, { fingerprint: string; payment: MockPixPayment }>();
  const made: MockPixPayment[] = [];
  const received: Array<{ reference: string; idempotencyKey: string }> = [];
  const webhooks: Array<{ url: string; status: number | null; body: unknown }> = [];
  const timers = new Set<NodeJS.Timeout>();
  let webhookUrl: string | null = null;

  const later = (ms: number, fn: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };

  const settle = (payment: MockPixPayment, notificationUrl: string | null, delayMs: number) => {
    later(delayMs, () => {
      payment.status = 'settled';
      payment.settled_at = new Date().toISOString();
      const url = notificationUrl ?? webhookUrl;
      if (!url) return;
      const body = {
        type: 'pix.payment.settled',
        payment_id: payment.id,
        idempotency_key: payment.idempotency_key,
        end_to_end_id: payment.end_to_end_id,
      };
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
        .then((response) => webhooks.push({ url, status: response.status, body }))
        .catch(() => webhooks.push({ url, status: null, body }));
    });
  };

  const initiate = async (req: IncomingMessage, res: ServerResponse) => {
    const idempotencyKey = req.headers['idempotency-key'];
    if (typeof idempotencyKey !== 'string' || idempotencyKey === '')
      return sendJson(res, 400, {
        code: 'idempotency_key_required',
        message: 'Send an Idempotency-Key header',
      });
    const body = await readJson(req);
    const reference = String(body.reference ?? '');
    const fingerprint = JSON.stringify([body.key, body.amount, body.txid ?? null]);
    received.push({ reference, idempotencyKey });
    arrived.note(reference);
    const previous = byKey.get(idempotencyKey);
    if (previous) {
      if (previous.fingerprint !== fingerprint)
        return sendJson(res, 422, {
          code: 'idempotency_key_reuse',
          message: 'This key was used for another payment',
        });
      return sendJson(res, 200, previous.payment);
    }
    if (
      typeof body.key !== 'string' ||
      typeof body.amount !== 'string' ||
      !/^\d+\.\d{2}$/.test(body.amount)
    ) {
      return sendJson(res, 400, { code: 'invalid_request', message: 'key and amount (0.00) are required' });
    }
    const script = book.take(reference);
    if (script.outcome === 'fail') return sendJson(res, 503, { code: 'unavailable', message: 'try again' });
    if (script.outcome === 'refuse')
      return sendJson(res, 422, {
        code: 'psp_refused',
        reason: script.reason ?? 'AM04',
        message: 'The receiving institution refused the payment',
      });
    if (script.outcome === 'lost') return; // the connection hangs; nothing was recorded
    if (removedKeys.has(body.key))
      return sendJson(res, 422, {
        code: 'psp_refused',
        reason: 'key_not_found',
        message: 'The key is not in DICT',
      });
    const debtor = body.debtor as { funding_source_id?: unknown } | undefined;
    const fundingSourceId = typeof debtor?.funding_source_id === 'string' ? debtor.funding_source_id : null;
    const limit = fundingSourceId === null ? undefined : fundingLimits.get(fundingSourceId);
    if (limit !== undefined && Math.round(Number(body.amount) * 100) > limit) {
      return sendJson(res, 422, {
        code: 'psp_refused',
        reason: 'AM04',
        message: "The consumer's funding source cannot cover the amount",
      });
    }
    const now = new Date();
    const settlesLater = script.outcome === 'succeed' && script.settle === 'webhook';
    const payment: MockPixPayment = {
      id: `pixpay_${randomBytes(8).toString('hex')}`,
      end_to_end_id: endToEndId(now),
      idempotency_key: idempotencyKey,
      reference,
      key: body.key,
      amount: body.amount,
      txid: typeof body.txid === 'string' ? body.txid : null,
      funding_source_id: fundingSourceId,
      status: settlesLater ? 'processing' : 'settled',
      created_at: now.toISOString(),
      settled_at: settlesLater ? null : now.toISOString(),
    };
    byKey.set(idempotencyKey, { fingerprint, payment });
    made.push(payment);
    const notificationUrl = typeof body.notification_url === 'string' ? body.notification_url : null;
    if (settlesLater) settle(payment, notificationUrl, script.settleDelayMs ?? 50);
    if (script.outcome === 'timeout') return; // paid, but the answer never comes
    if (script.outcome === 'late') return later(script.delayMs, () => sendJson(res, 201, payment));
    return sendJson(res, 201, payment);
  };

  const cobs = cobBook();
  const listening = await listen(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://mock');
    if (url.pathname.startsWith('/cob/') || url.pathname.startsWith('/webhook/'))
      return cobs.handle(req, res, url);
    const dict = /^\/dict\/v2\/keys\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && dict) {
      const key = decodeURIComponent(dict[1]);
      if (removedKeys.has(key))
        return sendJson(res, 404, { code: 'key_not_found', message: 'No such key in DICT' });
      return sendJson(res, 200, synthesizeEntry(key));
    }
    if (req.method === 'POST' && url.pathname === '/pix/v1/payments') return initiate(req, res);
    if (req.method === 'GET' && url.pathname === '/pix/v1/payments') {
      const found = byKey.get(url.searchParams.get('idempotency_key') ?? '');
      return found
        ? sendJson(res, 200, found.payment)
        : sendJson(res, 404, { code: 'not_found', message: 'No payment under this key' });
    }
    const one = /^\/pix\/v1\/payments\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && one) {
      const payment = made.find((p) => p.id === one[1]);
      return payment
        ? sendJson(res, 200, payment)
        : sendJson(res, 404, { code: 'not_found', message: 'No such payment' });
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
    setFundingLimit: (id, limitMinor) =>
      void (limitMinor === null ? fundingLimits.delete(id) : fundingLimits.set(id, limitMinor)),
    removeKey: (key) => void removedKeys.add(key),
    setWebhookUrl: (url) => void (webhookUrl = url),
    arrived: (reference, count) => arrived.wait(reference, count),
    payments: () => [...made],
    served: () => listening.served(),
    requests: () => [...received],
    webhooksSent: () => [...webhooks],
    cobs,
  };
}
