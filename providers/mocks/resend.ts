// A Resend mock: POST /emails with a Bearer key records the email (once per Idempotency-Key) and answers
// {id}; validation failures answer 422 {statusCode, name: validation_error, message}. Tests read `emails`.
import { randomUUID } from 'node:crypto';
import { FaultQueue, startJsonServer } from './json-server';
import type { RunningMock } from './running-mock';

export interface ResendEmail {
  id: string;
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  idempotency_key: string | null;
  authorization: string;
}

export interface ResendMock extends RunningMock {
  emails: ResendEmail[];
  faults: FaultQueue;
  latestCode(to: string): string | undefined;
}

const failure = (statusCode: number, name: string, message: string) => ({
  status: statusCode,
  body: { statusCode, name, message },
});

export async function startResendMock(options: { port?: number } = {}): Promise<ResendMock> {
  const emails: ResendEmail[] = [];
  const faults = new FaultQueue();
  const server = await startJsonServer((request) => {
    if (request.method !== 'POST' || request.path !== '/emails')
      return failure(404, 'not_found', 'The requested endpoint does not exist.');
    const authorization = String(request.headers.authorization ?? '');
    if (!authorization)
      return failure(401, 'missing_api_key', 'Missing API key in the authorization header.');
    if (!/^Bearer re_\S+$/.test(authorization)) return failure(403, 'invalid_api_key', 'API key is invalid.');
    const fault = faults.take();
    if (fault) return fault;
    const body = (request.body ?? {}) as Record<string, unknown>;
    const to = Array.isArray(body.to) ? (body.to as string[]) : typeof body.to === 'string' ? [body.to] : [];
    if (typeof body.from !== 'string' || to.length === 0 || typeof body.subject !== 'string') {
      return failure(422, 'validation_error', 'The `from`, `to` and `subject` fields are required.');
    }
    if (to.some((address) => !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(address)))
      return failure(422, 'validation_error', 'Invalid `to` field.');
    const key = (request.headers['idempotency-key'] as string | undefined) ?? null;
    const replay = key ? emails.find((email) => email.idempotency_key === key) : undefined;
    if (replay) return { status: 200, body: { id: replay.id } };
    const email: ResendEmail = {
      id: randomUUID(),
      from: body.from,
      to,
      subject: body.subject,
      text: String(body.text ?? ''),
      html: String(body.html ?? ''),
      idempotency_key: key,
      authorization,
    };
    emails.push(email);
    return { status: 200, body: { id: email.id } };
  }, options.port);
  return {
    ...server,
    emails,
    faults,
    latestCode(to) {
      const latest = [...emails].reverse().find((email) => email.to.includes(to));
      return latest ? /\b(\d{4,8})\b/.exec(latest.text)?.[1] : undefined;
    },
  };
}
