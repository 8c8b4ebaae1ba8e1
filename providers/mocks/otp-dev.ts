// The development message sink behind the `dev` OTP sender: records every message it is given (once
// per Idempotency-Key) so tests and the dev console read the code. GET /v1/messages?to=<target> lists
// them newest first; POST /v1/faults {status, count} makes the next sends fail, for retry drills.
import { randomUUID } from 'node:crypto';
import { FaultQueue, startJsonServer } from './json-server';
import type { RunningMock } from './running-mock';

export interface DevMessage {
  id: string;
  channel: string;
  to: string;
  subject: string;
  text: string;
  locale: string;
  reference: string;
  idempotency_key: string | null;
  received_at: string;
}

export interface DevSenderMock extends RunningMock {
  messages: DevMessage[];
  faults: FaultQueue;
  /** How many send requests arrived, including replays and failed ones. */
  requestCount(): number;
  /** The newest code sent to `to`, read from the message text. */
  latestCode(to: string): string | undefined;
}

export async function startDevSenderMock(options: { port?: number } = {}): Promise<DevSenderMock> {
  const messages: DevMessage[] = [];
  const faults = new FaultQueue();
  let requests = 0;
  const server = await startJsonServer((request) => {
    if (request.method === 'POST' && request.path === '/v1/messages') {
      requests++;
      const fault = faults.take();
      if (fault) return fault;
      const body = (request.body ?? {}) as Record<string, string>;
      if (!body.to || !body.text || !body.channel)
        return {
          status: 422,
          body: { code: 'invalid_message', message: 'channel, to and text are required' },
        };
      const key = (request.headers['idempotency-key'] as string | undefined) ?? null;
      const replay = key ? messages.find((message) => message.idempotency_key === key) : undefined;
      if (replay) return { status: 202, body: { id: replay.id, status: 'queued' } };
      const message: DevMessage = {
        id: `msg_${randomUUID()}`,
        channel: body.channel,
        to: body.to,
        subject: body.subject ?? '',
        text: body.text,
        locale: body.locale ?? 'en',
        reference: body.reference ?? '',
        idempotency_key: key,
        received_at: new Date().toISOString(),
      };
      messages.push(message);
      return { status: 202, body: { id: message.id, status: 'queued' } };
    }
    if (request.method === 'GET' && request.path === '/v1/messages') {
      const to = request.query.get('to');
      return {
        status: 200,
        body: {
          messages: messages
            .filter((m) => !to || m.to === to)
            .slice()
            .reverse(),
        },
      };
    }
    if (request.method === 'POST' && request.path === '/v1/faults') {
      const body = (request.body ?? {}) as { status?: number; count?: number };
      faults.push(
        body.status ?? 503,
        { code: 'injected_fault', message: 'fault injected by /v1/faults' },
        body.count ?? 1,
      );
      return { status: 204 };
    }
    return { status: 404, body: { code: 'not_found' } };
  }, options.port);
  return {
    ...server,
    messages,
    faults,
    requestCount: () => requests,
    latestCode(to) {
      const latest = [...messages].reverse().find((message) => message.to === to);
      return latest ? /\b(\d{4,8})\b/.exec(latest.text)?.[1] : undefined;
    },
  };
}
