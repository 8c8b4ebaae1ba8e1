// The mock card issuer: a real HTTP server speaking an issuing protocol shaped like Stripe Issuing's. It
// creates virtual cards (idempotent by `Idempotency-Key`), freezes, unfreezes and cancels them, shows a
// card's number and CVC only on its own single-use display page, and, driven by its test helpers, sends the
// gateway signed real-time authorization requests (answered within `deadlineMs`, else declined by stand-in
// as a network does) and the later messages: captures, reversals, expiries and refunds, each numbered
// within its authorization. Delivery is scriptable: hold messages and flush them in any order, send
// duplicates. Its authorizations and transactions are the issuer's records a test compares the ledger with.
import { randomBytes, randomInt } from 'node:crypto';
import { DEV_ISSUER_API_KEY, DEV_ISSUER_WEBHOOK_SECRET } from '../../runtime/config';
import { signIssuerMessage } from '../../domain/issuer/webhook-signature';
import { startJsonServer, type MockRequest, type MockResponse } from './json-server';
import type { RunningMock } from './running-mock';

interface Card {
  id: string;
  object: 'issuing.card';
  brand: 'visa';
  last4: string;
  exp_month: number;
  exp_year: number;
  currency: string;
  status: 'active' | 'inactive' | 'canceled';
  metadata: Record<string, unknown>;
  number: string;
  cvc: string;
}

interface Authorization {
  id: string;
  object: 'issuing.authorization';
  card: string;
  amount: number;
  currency: string;
  merchant_data: Record<string, unknown>;
  approved: boolean | null;
  decline_reason: string | null;
  status: 'pending' | 'closed' | 'reversed' | 'expired';
  decided_in_ms: number | null;
  sequence: number;
  created: number;
  /** When the authorization lapses (Unix seconds), when the network states it; null leaves it to the gateway. */
  expires_at: number | null;
}

interface Transaction {
  id: string;
  object: 'issuing.transaction';
  type: 'capture' | 'refund';
  authorization: string;
  card: string;
  amount: number;
  currency: string;
  created: number;
}

interface Message {
  id: string;
  body: string;
}

export interface IssuerMock extends RunningMock {
  authorizations(): Authorization[];
  transactions(): Transaction[];
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;
const now = () => Math.floor(Date.now() / 1000);

/** A test number with a valid Luhn check digit on the 4242 sandbox range. */
function cardNumber(): string {
  const body = `424242${String(randomInt(0, 1e9)).padStart(9, '0')}`;
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let digit = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return `${body}${(10 - (sum % 10)) % 10}`;
}

export async function startIssuerMock(
  options: { port?: number; webhookSecret?: string; apiKey?: string; deadlineMs?: number } = {},
): Promise<IssuerMock> {
  const secret = options.webhookSecret ?? DEV_ISSUER_WEBHOOK_SECRET;
  const apiKey = options.apiKey ?? DEV_ISSUER_API_KEY;
  let deadlineMs = options.deadlineMs ?? 2000;
  let endpoint: { id: string; url: string } | null = null;
  const cards = new Map<string, Card>();
  const byIdempotencyKey = new Map<string, Card>();
  const displays = new Map<string, { card: string; expires: number }>();
  const authorizations = new Map<string, Authorization>();
  const transactions = new Map<string, Transaction>();
  let holding = false;
  const held: Message[] = [];
  let base = '';

  const send = async (body: string, timeoutMs: number): Promise<Response> => {
    if (!endpoint) throw new Error('no webhook endpoint is registered');
    return fetch(endpoint.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'issuer-signature': signIssuerMessage(secret, now(), body),
      },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
  };
  const deliver = async (message: Message): Promise<number> => {
    try {
      const response = await send(message.body, 10_000);
      await response.arrayBuffer();
      return response.status;
    } catch {
      return 0;
    }
  };
  /** Emits the authorization's next message: delivered now, or held until a flush. */
  const emit = async (authorization: Authorization, type: string, object: unknown, copies: number) => {
    authorization.sequence += 1;
    const messageId = id('evt');
    const message: Message = {
      id: messageId,
      body: JSON.stringify({
        id: messageId,
        object: 'event',
        type,
        created: now(),
        sequence: authorization.sequence,
        data: { object },
      }),
    };
    const copiesOf = Array.from({ length: copies }, () => message);
    if (holding) {
      held.push(...copiesOf);
      return { delivered: [] as number[] };
    }
    const delivered: number[] = [];
    for (const copy of copiesOf) delivered.push(await deliver(copy));
    return { delivered };
  };

  const authorized = (headers: MockRequest['headers']) => headers.authorization === `Bearer ${apiKey}`;
  const input = (body: unknown) =>
    body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const amountOf = (value: unknown, fallback: number) =>
    Number.isSafeInteger(value) && (value as number) > 0 ? (value as number) : fallback;
  const publicCard = ({ number: _n, cvc: _c, ...card }: Card) => card;

  async function requestAuthorization(body: Record<string, unknown>): Promise<MockResponse> {
    const card = cards.get(String(body.card));
    if (!card)
      return { status: 404, body: { error: { type: 'invalid_request_error', code: 'resource_missing' } } };
    const authorization: Authorization = {
      id: id('iauth'),
      object: 'issuing.authorization',
      card: card.id,
      amount: amountOf(body.amount, 1000),
      currency: String(body.currency ?? card.currency).toLowerCase(),
      merchant_data: input(body.merchant_data),
      approved: null,
      decline_reason: null,
      status: 'pending',
      decided_in_ms: null,
      sequence: 1,
      created: now(),
      expires_at: amountOf(body.expires_at, 0) || null,
    };
    authorizations.set(authorization.id, authorization);
    const request = JSON.stringify({
      id: id('evt'),
      object: 'event',
      type: 'issuing_authorization.request',
      created: now(),
      sequence: 1,
      data: { object: authorization },
    });
    const started = performance.now();
    const copies = amountOf(body.duplicates, 1);
    let answer: { approved?: unknown; decline_reason?: unknown } = {};
    try {
      const response = await send(request, deadlineMs);
      answer = response.ok ? ((await response.json()) as typeof answer) : {};
      if (!response.ok) answer = { approved: false, decline_reason: `webhook_error_${response.status}` };
    } catch {
      answer = { approved: false, decline_reason: 'webhook_timeout' };
    }
    authorization.decided_in_ms = Math.round(performance.now() - started);
    // A network resending the same request (a retry after a lost answer) gets the same decision or not.
    const repeats: unknown[] = [];
    for (let i = 1; i < copies; i++) {
      const again = await send(request, deadlineMs).then((r) => r.json() as Promise<unknown>);
      repeats.push(again);
    }
    authorization.approved = answer.approved === true;
    authorization.decline_reason = authorization.approved
      ? null
      : String(answer.decline_reason ?? 'declined');
    if (!authorization.approved) authorization.status = 'closed';
    return { status: 200, body: { ...authorization, repeated_answers: repeats } };
  }

  async function helper(path: string, body: Record<string, unknown>): Promise<MockResponse> {
    if (path === '/v1/test_helpers/issuing/authorizations') return requestAuthorization(body);
    if (path === '/v1/test_helpers/delivery/hold') {
      holding = true;
      return { status: 200, body: { holding } };
    }
    if (path === '/v1/test_helpers/delivery/flush') {
      holding = false;
      const queue = held.splice(0);
      if (body.order === 'reverse') queue.reverse();
      const delivered: number[] = [];
      for (const message of queue) delivered.push(await deliver(message));
      return { status: 200, body: { delivered } };
    }
    if (path === '/v1/test_helpers/deadline') {
      deadlineMs = amountOf(body.deadline_ms, deadlineMs);
      return { status: 200, body: { deadline_ms: deadlineMs } };
    }
    const action = /^\/v1\/test_helpers\/issuing\/(authorizations|transactions)\/([^/]+)\/(\w+)$/.exec(path);
    if (!action)
      return { status: 404, body: { error: { type: 'invalid_request_error', code: 'unknown_path' } } };
    const copies = amountOf(body.duplicates, 1);
    const [, kind, targetId, verb] = action;
    if (kind === 'transactions' && verb === 'refund') {
      const capture = transactions.get(targetId);
      const authorization = capture && authorizations.get(capture.authorization);
      if (!capture || !authorization) return { status: 404, body: { error: { code: 'resource_missing' } } };
      const refund: Transaction = {
        ...capture,
        id: id('ipi'),
        type: 'refund',
        amount: amountOf(body.refund_amount, capture.amount),
        created: now(),
      };
      transactions.set(refund.id, refund);
      return {
        status: 200,
        body: { ...refund, ...(await emit(authorization, 'issuing_transaction.created', refund, copies)) },
      };
    }
    const authorization = authorizations.get(targetId);
    if (kind !== 'authorizations' || !authorization || !authorization.approved)
      return { status: 404, body: { error: { code: 'resource_missing' } } };
    if (verb === 'capture') {
      const capture: Transaction = {
        id: id('ipi'),
        object: 'issuing.transaction',
        type: 'capture',
        authorization: authorization.id,
        card: authorization.card,
        amount: amountOf(body.capture_amount, authorization.amount),
        currency: authorization.currency,
        created: now(),
      };
      transactions.set(capture.id, capture);
      authorization.status = 'closed';
      return {
        status: 200,
        body: { ...capture, ...(await emit(authorization, 'issuing_transaction.created', capture, copies)) },
      };
    }
    if (verb === 'reverse' || verb === 'expire') {
      if (authorization.status !== 'pending')
        return { status: 400, body: { error: { code: 'authorization_not_pending' } } };
      authorization.status = verb === 'reverse' ? 'reversed' : 'expired';
      const type = verb === 'reverse' ? 'issuing_authorization.reversed' : 'issuing_authorization.expired';
      return {
        status: 200,
        body: { ...authorization, ...(await emit(authorization, type, authorization, copies)) },
      };
    }
    return { status: 404, body: { error: { code: 'unknown_action' } } };
  }

  const server = await startJsonServer(async ({ method, path, headers, body }) => {
    const display = /^\/display\/([^/]+)$/.exec(path);
    if (method === 'GET' && display) {
      // The issuer's own page; the mock answers JSON. Single use: a second look finds nothing.
      const session = displays.get(display[1]);
      displays.delete(display[1]);
      const card = session && session.expires > now() ? cards.get(session.card) : undefined;
      if (!card) return { status: 410, body: { error: { code: 'display_expired' } } };
      return {
        status: 200,
        body: { number: card.number, cvc: card.cvc, exp_month: card.exp_month, exp_year: card.exp_year },
      };
    }
    if (path.startsWith('/v1/test_helpers/') && method === 'POST') return helper(path, input(body));
    if (method === 'GET' && path === '/v1/test_helpers/records')
      return {
        status: 200,
        body: { authorizations: [...authorizations.values()], transactions: [...transactions.values()] },
      };
    if (!authorized(headers)) return { status: 401, body: { error: { type: 'authentication_error' } } };
    const fields = input(body);
    if (method === 'POST' && path === '/v1/webhook_endpoints') {
      if (typeof fields.url !== 'string')
        return { status: 400, body: { error: { code: 'parameter_missing', param: 'url' } } };
      endpoint = endpoint?.url === fields.url ? endpoint : { id: id('we'), url: fields.url };
      return { status: 200, body: { ...endpoint, object: 'webhook_endpoint' } };
    }
    if (method === 'POST' && path === '/v1/issuing/cards') {
      const key = String(headers['idempotency-key'] ?? '');
      const earlier = key ? byIdempotencyKey.get(key) : undefined;
      if (earlier) return { status: 200, body: publicCard(earlier) };
      if (typeof fields.currency !== 'string')
        return { status: 400, body: { error: { code: 'parameter_missing', param: 'currency' } } };
      const number = cardNumber();
      const expires = new Date();
      const card: Card = {
        id: id('ic'),
        object: 'issuing.card',
        brand: 'visa',
        last4: number.slice(-4),
        exp_month: expires.getUTCMonth() + 1,
        exp_year: expires.getUTCFullYear() + 3,
        currency: fields.currency.toLowerCase(),
        status: 'active',
        metadata: input(fields.metadata),
        number,
        cvc: String(randomInt(0, 1000)).padStart(3, '0'),
      };
      cards.set(card.id, card);
      if (key) byIdempotencyKey.set(key, card);
      return { status: 200, body: publicCard(card) };
    }
    const cardPath = /^\/v1\/issuing\/cards\/([^/]+)(\/display_sessions)?$/.exec(path);
    const card = cardPath ? cards.get(cardPath[1]) : undefined;
    if (cardPath && !card) return { status: 404, body: { error: { code: 'resource_missing' } } };
    if (card && method === 'GET' && !cardPath![2]) return { status: 200, body: publicCard(card) };
    if (card && method === 'POST' && cardPath![2]) {
      if (card.status === 'canceled') return { status: 400, body: { error: { code: 'card_canceled' } } };
      const token = randomBytes(24).toString('base64url');
      displays.set(token, { card: card.id, expires: now() + 300 });
      return {
        status: 200,
        body: { object: 'display_session', url: `${base}/display/${token}`, expires_at: now() + 300 },
      };
    }
    if (card && method === 'POST') {
      const status = fields.status;
      if (status !== 'active' && status !== 'inactive' && status !== 'canceled')
        return { status: 400, body: { error: { code: 'invalid_status', param: 'status' } } };
      if (card.status === 'canceled' && status !== 'canceled')
        return { status: 400, body: { error: { code: 'card_canceled' } } };
      card.status = status;
      return { status: 200, body: publicCard(card) };
    }
    return { status: 404, body: { error: { code: 'unknown_path' } } };
  }, options.port);
  base = server.url;
  return {
    ...server,
    authorizations: () => [...authorizations.values()],
    transactions: () => [...transactions.values()],
  };
}
