// A Prelude Verify v2 mock: POST /v2/verification creates (or retries) a verification and generates
// its code; POST /v2/verification/check answers success, failure or expired_or_not_found. Bearer auth
// required. Tests read `codeFor(target)` and script refusals and outages.
import { randomBytes } from 'node:crypto';
import { FaultQueue, startJsonServer } from './json-server';
import type { RunningMock } from './running-mock';

interface PreludeVerification {
  id: string;
  target: string;
  code: string;
  status: 'pending' | 'verified';
  created_at: number;
}

export interface PreludeMock extends RunningMock {
  verifications: PreludeVerification[];
  authorizations: string[];
  /** The `metadata.correlation_id` of every create, refused ones too, in order. */
  correlationIds: string[];
  faults: FaultQueue;
  /** The next create answers `status: blocked` with this reason. */
  blockNext(reason: string): void;
  codeFor(target: string): string | undefined;
}

const requestId = () => randomBytes(8).toString('hex');
const error = (status: number, code: string, message: string) => ({
  status,
  body: { code, message, type: status >= 500 ? 'server_error' : 'bad_request', request_id: requestId() },
});

export async function startPreludeMock(options: { port?: number } = {}): Promise<PreludeMock> {
  const verifications: PreludeVerification[] = [];
  const authorizations: string[] = [];
  const correlationIds: string[] = [];
  const faults = new FaultQueue();
  let blocked: string | undefined;
  const open = (target: string) =>
    [...verifications].reverse().find((v) => v.target === target && v.status === 'pending');

  const server = await startJsonServer((request) => {
    const auth = String(request.headers.authorization ?? '');
    if (!/^Bearer \S+$/.test(auth)) return error(401, 'unauthorized', 'missing or invalid API key');
    authorizations.push(auth);
    const body = (request.body ?? {}) as {
      target?: { type?: string; value?: string };
      code?: string;
      metadata?: { correlation_id?: string };
    };
    const target = body.target?.value;
    if (request.method === 'POST' && request.path === '/v2/verification') {
      if (body.metadata?.correlation_id) correlationIds.push(body.metadata.correlation_id);
      const fault = faults.take();
      if (fault) return fault;
      if (!target || !['phone_number', 'email_address'].includes(body.target?.type ?? ''))
        return error(400, 'invalid_target', 'target is invalid');
      if (body.target?.type === 'phone_number' && !/^\+[1-9][0-9]{7,14}$/.test(target))
        return error(400, 'invalid_phone_number', 'The phone number is invalid');
      if (blocked) {
        const reason = blocked;
        blocked = undefined;
        return {
          status: 200,
          body: {
            id: `vrf_${randomBytes(10).toString('hex')}`,
            status: 'blocked',
            reason,
            request_id: requestId(),
          },
        };
      }
      const existing = open(target);
      if (existing)
        return {
          status: 200,
          body: {
            id: existing.id,
            status: 'retry',
            method: 'message',
            channels: ['sms'],
            request_id: requestId(),
          },
        };
      const verification: PreludeVerification = {
        id: `vrf_${randomBytes(10).toString('hex')}`,
        target,
        status: 'pending',
        created_at: Date.now(),
        code: String(randomBytes(4).readUInt32BE() % 1_000_000).padStart(6, '0'),
      };
      verifications.push(verification);
      return {
        status: 200,
        body: {
          id: verification.id,
          status: 'success',
          method: 'message',
          channels: ['sms'],
          request_id: requestId(),
        },
      };
    }
    if (request.method === 'POST' && request.path === '/v2/verification/check') {
      const fault = faults.take();
      if (fault) return fault;
      if (!target || typeof body.code !== 'string')
        return error(400, 'invalid_parameter', 'target and code are required');
      const verification = open(target);
      if (!verification)
        return { status: 200, body: { status: 'expired_or_not_found', request_id: requestId() } };
      if (verification.code !== body.code)
        return { status: 200, body: { id: verification.id, status: 'failure', request_id: requestId() } };
      verification.status = 'verified';
      return { status: 200, body: { id: verification.id, status: 'success', request_id: requestId() } };
    }
    return error(404, 'not_found', 'no such route');
  }, options.port);

  return {
    ...server,
    verifications,
    authorizations,
    correlationIds,
    faults,
    blockNext: (reason) => {
      blocked = reason;
    },
    codeFor: (target) => open(target)?.code,
  };
}
