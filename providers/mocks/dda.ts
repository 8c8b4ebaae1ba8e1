// The mock DDA provider: a real HTTP server shaped like a Brazilian DDA API. It registers a payer document
// (CPF or CNPJ) under the caller's clientRequestId (idempotent: the same id answers the same registration),
// confirms the registration later by a signed webhook to the registration's callbackUrl (see
// providers/dda/signature.ts), deletes registrations, and lists the boletos owed by a registered document.
// Tests script each document: confirm at once or late, never confirm, refuse, fail, duplicate or forge.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEV_DDA_WEBHOOK_SECRET } from '../../runtime/config';
import {
  DDA_SIGNATURE_HEADER,
  DDA_TIMESTAMP_HEADER,
  signDdaWebhook,
} from '../../domain/dda/webhook-signature';
import { listen, readJson, sendJson } from './http-kit';
import type { RunningMock } from './running-mock';

/**
 * How the provider treats one document's registration:
 *   confirm – accepts and sends the signed confirmation (after `delayMs`; twice with `duplicate`)
 *   hold    – accepts; the confirmation goes out only when the test calls `confirm()` (a late one)
 *   never   – accepts and never confirms
 *   forge   – accepts; a confirmation signed with the wrong secret arrives, the real one never does
 *   lost    – registers, but answers 503 to this and the next `times - 1` calls for it (the answer is lost);
 *             the confirmation goes out only when the test calls `confirm()`
 *   refuse  – answers 422 and registers nothing
 *   fail    – answers 503 `times` times, then behaves as `then`
 */
export type DdaScript =
  | { outcome: 'confirm'; delayMs?: number; duplicate?: boolean }
  | { outcome: 'hold' }
  | { outcome: 'never' }
  | { outcome: 'forge' }
  | { outcome: 'lost'; times: number }
  | { outcome: 'refuse'; reason?: string }
  | { outcome: 'fail'; times: number; then?: DdaScript };

export interface MockDdaSubscription {
  clientRequestId: string;
  subscriptionId: string;
  document: string;
  clientName: string | null;
  callbackUrl: string;
  status: 'PROCESSING' | 'ACTIVE' | 'DELETED';
}

export interface MockBoleto {
  digitableLine: string;
  amount: string;
  dueDate: string;
  beneficiaryName: string;
  status: 'OPEN' | 'PAID';
}

export interface DdaWebhookSent {
  clientRequestId: string;
  forged: boolean;
  status: number | null;
}

export interface DdaMock extends RunningMock {
  webhookSecret: string;
  script(document: string, script: DdaScript): void;
  /** Sends the signed confirmation of a held registration now (twice with `duplicate`). */
  confirm(clientRequestId: string, options?: { duplicate?: boolean }): Promise<void>;
  /** Sends a confirmation signed with the wrong secret, optionally carrying another subscription id. */
  forge(clientRequestId: string, subscriptionId?: string): Promise<number | null>;
  /** The next `times` deletions answer 503. */
  failDeletes(times: number): void;
  setBoletos(document: string, boletos: MockBoleto[]): void;
  subscriptions(): MockDdaSubscription[];
  registrations(): Array<{ clientRequestId: string; document: string }>;
  webhooks(): DdaWebhookSent[];
  /** Resolves once `count` webhooks went out (and were answered). */
  webhooksSent(count: number): Promise<void>;
}

/** The longest listing window the provider serves, as real DDA APIs bound their queries. */
export const DDA_MOCK_MAX_RANGE_DAYS = 31;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export async function startDdaMock(
  options: { port?: number; webhookSecret?: string } = {},
): Promise<DdaMock> {
  const secret = options.webhookSecret ?? DEV_DDA_WEBHOOK_SECRET;
  const scripts = new Map<string, DdaScript>();
  const subscriptions = new Map<string, MockDdaSubscription>();
  const registrations: Array<{ clientRequestId: string; document: string }> = [];
  const boletos = new Map<string, MockBoleto[]>();
  const sent: DdaWebhookSent[] = [];
  const sentWaiters: Array<{ count: number; resolve: () => void }> = [];
  const timers = new Set<NodeJS.Timeout>();
  let deleteFailures = 0;
  const lostAnswers = new Map<string, number>();

  const takeScript = (document: string): DdaScript => {
    const script = scripts.get(document) ?? { outcome: 'confirm' };
    if (script.outcome !== 'fail') return script;
    if (script.times <= 1) scripts.set(document, script.then ?? { outcome: 'confirm' });
    else scripts.set(document, { ...script, times: script.times - 1 });
    return script;
  };

  const deliver = async (subscription: MockDdaSubscription, forged: boolean, subscriptionId?: string) => {
    const body = JSON.stringify({
      event: 'DDA_SUBSCRIPTION',
      status: 'ACTIVE',
      clientRequestId: subscription.clientRequestId,
      subscriptionId: subscriptionId ?? subscription.subscriptionId,
      document: subscription.document,
      occurredAt: new Date().toISOString(),
    });
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = signDdaWebhook(forged ? `${secret}-forged` : secret, timestamp, body);
    if (!forged) subscription.status = subscription.status === 'DELETED' ? 'DELETED' : 'ACTIVE';
    const record: DdaWebhookSent = { clientRequestId: subscription.clientRequestId, forged, status: null };
    try {
      const response = await fetch(subscription.callbackUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [DDA_SIGNATURE_HEADER]: signature,
          [DDA_TIMESTAMP_HEADER]: String(timestamp),
        },
        body,
      });
      record.status = response.status;
      await response.arrayBuffer();
    } catch {
      record.status = null;
    }
    sent.push(record);
    for (const waiter of [...sentWaiters]) {
      if (sent.length >= waiter.count) {
        sentWaiters.splice(sentWaiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
    return record.status;
  };

  const later = (delayMs: number, run: () => Promise<unknown>) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      void run();
    }, delayMs);
    timers.add(timer);
  };

  const register = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readJson(req);
    const document = typeof body.document === 'string' ? body.document : '';
    const clientRequestId = typeof body.clientRequestId === 'string' ? body.clientRequestId : '';
    const callbackUrl = typeof body.callbackUrl === 'string' ? body.callbackUrl : '';
    if (!/^(\d{11}|\d{14})$/.test(document) || !clientRequestId || !callbackUrl)
      return sendJson(res, 400, {
        code: 'invalid_request',
        message: 'document, clientRequestId and callbackUrl are required',
      });
    registrations.push({ clientRequestId, document });
    const existing = subscriptions.get(clientRequestId);
    const lost = lostAnswers.get(clientRequestId) ?? 0;
    if (existing && lost > 0) {
      lostAnswers.set(clientRequestId, lost - 1);
      return sendJson(res, 503, { code: 'unavailable', message: 'try again' });
    }
    if (existing) {
      if (existing.document !== document)
        return sendJson(res, 422, {
          code: 'client_request_id_reuse',
          message: 'This clientRequestId registered another document',
        });
      return sendJson(res, 202, { clientRequestId, status: existing.status });
    }
    const script = takeScript(document);
    if (script.outcome === 'fail') return sendJson(res, 503, { code: 'unavailable', message: 'try again' });
    if (script.outcome === 'refuse')
      return sendJson(res, 422, {
        code: script.reason ?? 'document_not_eligible',
        message: 'The document cannot be registered for DDA',
      });
    const subscription: MockDdaSubscription = {
      clientRequestId,
      subscriptionId: `dda-sub-${randomBytes(6).toString('hex')}`,
      document,
      clientName: typeof body.clientName === 'string' ? body.clientName : null,
      callbackUrl,
      status: 'PROCESSING',
    };
    subscriptions.set(clientRequestId, subscription);
    if (script.outcome === 'lost') {
      lostAnswers.set(clientRequestId, script.times - 1);
      return sendJson(res, 503, { code: 'unavailable', message: 'try again' });
    }
    sendJson(res, 202, { clientRequestId, status: 'PROCESSING' });
    if (script.outcome === 'confirm') {
      later(script.delayMs ?? 0, async () => {
        await deliver(subscription, false);
        if (script.duplicate) await deliver(subscription, false);
      });
    }
    if (script.outcome === 'forge') later(0, () => deliver(subscription, true, 'dda-sub-forged'));
  };

  const remove = (res: ServerResponse, clientRequestId: string) => {
    if (deleteFailures > 0) {
      deleteFailures--;
      return sendJson(res, 503, { code: 'unavailable', message: 'try again' });
    }
    const subscription = subscriptions.get(clientRequestId);
    if (!subscription) return sendJson(res, 404, { code: 'subscription_not_found', message: 'Unknown' });
    subscription.status = 'DELETED';
    return sendJson(res, 200, { clientRequestId, status: 'DELETED' });
  };

  const list = (res: ServerResponse, query: URLSearchParams) => {
    const document = query.get('document') ?? '';
    const from = query.get('initialDate') ?? '';
    const to = query.get('finalDate') ?? '';
    if (!DATE.test(from) || !DATE.test(to))
      return sendJson(res, 400, {
        code: 'invalid_date',
        message: 'initialDate and finalDate are YYYY-MM-DD',
      });
    const days = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000;
    if (!(days >= 0) || days > DDA_MOCK_MAX_RANGE_DAYS)
      return sendJson(res, 400, {
        code: 'invalid_date_range',
        message: `finalDate must be on or after initialDate and at most ${DDA_MOCK_MAX_RANGE_DAYS} days later`,
      });
    const active = [...subscriptions.values()].some((s) => s.document === document && s.status === 'ACTIVE');
    if (!active)
      return sendJson(res, 404, { code: 'subscription_not_found', message: 'The document has no DDA' });
    const items = (boletos.get(document) ?? []).filter((b) => b.dueDate >= from && b.dueDate <= to);
    return sendJson(res, 200, { document, items });
  };

  const listening = await listen(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://mock');
    if (req.method === 'POST' && url.pathname === '/dda/v1/subscriptions') return register(req, res);
    const deletion = /^\/dda\/v1\/subscriptions\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'DELETE' && deletion) return remove(res, decodeURIComponent(deletion[1]));
    if (req.method === 'GET' && url.pathname === '/dda/v1/boletos') return list(res, url.searchParams);
    return sendJson(res, 404, { code: 'not_found', message: 'No such route' });
  }, options.port);

  const byId = (clientRequestId: string): MockDdaSubscription => {
    const subscription = subscriptions.get(clientRequestId);
    if (!subscription) throw new Error(`no registration ${clientRequestId}`);
    return subscription;
  };

  return {
    url: listening.url,
    webhookSecret: secret,
    async stop() {
      for (const timer of timers) clearTimeout(timer);
      await listening.stop();
    },
    script: (document, script) => void scripts.set(document, script),
    async confirm(clientRequestId, confirmOptions = {}) {
      const subscription = byId(clientRequestId);
      await deliver(subscription, false);
      if (confirmOptions.duplicate) await deliver(subscription, false);
    },
    forge: (clientRequestId, subscriptionId) => deliver(byId(clientRequestId), true, subscriptionId),
    failDeletes: (times) => void (deleteFailures = times),
    setBoletos: (document, list) => void boletos.set(document, list),
    subscriptions: () => [...subscriptions.values()],
    registrations: () => [...registrations],
    webhooks: () => [...sent],
    webhooksSent: (count) =>
      sent.length >= count
        ? Promise.resolve()
        : new Promise((resolve) => sentWaiters.push({ count, resolve })),
  };
}
