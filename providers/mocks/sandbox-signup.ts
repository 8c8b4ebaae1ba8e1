// A provider's sandbox sign-up API, mounted on that provider's mock (the catalog's `signup_api`
// descriptor): sign-ups keyed by Idempotency-Key, a verification code "emailed" into an outbox a person
// (or a test) reads, code checks with a lifetime, and API keys the provider's API then accepts.
//
//   POST /sandbox/signups                   {email, company_name}  201 {id, status, verification?}
//   GET  /sandbox/signups/{id}                                     200 the sign-up
//   POST /sandbox/signups/{id}/verification {code}                 200 verified | 422 code_invalid | 410 code_expired
//   POST /sandbox/signups/{id}/api_keys     {}                     201 {id, secret, livemode: false} | 409 signup_not_verified
//   GET  /sandbox/outbox?to=<email>                                200 {messages: [{to, subject, code, sent_at}]}
//   PATCH /sandbox/settings   {code_ttl_seconds?, verification?, outage?}  200 the settings: the sandbox's own
//                             dashboard, where a short code lifetime shows a stale run on `npm run dev` and an
//                             outage (every sign-up call answers 503) a provider being quarantined
//
// Tests script each step's next answers (a 500, a refusal, a delay) and read the codes it sent.
import { randomBytes, randomInt } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { InboundRequest } from './http-kit';

export type SignupStepName = 'signup' | 'verification' | 'api_key';

/** A scripted answer in place of the real one, or a delay before the real one. */
export type SignupScript = { status: number; body?: unknown } | { delayMs: number };

interface Signup {
  id: string;
  email: string;
  company_name: string;
  status: 'pending_verification' | 'verified';
  code: string | null;
  code_expires_at: number;
  created_at: string;
}

interface OutboxMessage {
  to: string;
  subject: string;
  code: string;
  sent_at: string;
}

export interface SandboxSignups {
  /** How long a code holds (the provider states it as `expires_in`), and whether sign-ups need one. */
  settings: { codeTtlSeconds: number; verification: boolean; outage: boolean };
  script(step: SignupStepName, ...answers: SignupScript[]): void;
  /** The latest code the provider emailed to this address. */
  codeFor(email: string): string | undefined;
  signups(): Array<{ id: string; email: string; status: Signup['status'] }>;
  /** Whether this key was issued by the sign-up API (the provider's API accepts it). */
  accepts(key: string): boolean;
  issuedKeys(): string[];
}

const mask = (email: string): string => {
  const [local, domain] = email.split('@');
  return `${local.slice(0, 1)}***@${domain ?? ''}`;
};
const id = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

const refusal = (code: string, message: string) => ({ error: { code, message } });

export function sandboxSignups(): SandboxSignups & {
  handle(request: InboundRequest, res: ServerResponse): boolean;
} {
  const settings = { codeTtlSeconds: 900, verification: true, outage: false };
  const scripts: Record<SignupStepName, SignupScript[]> = { signup: [], verification: [], api_key: [] };
  const signups = new Map<string, Signup>();
  const byIdempotencyKey = new Map<string, { status: number; body: unknown }>();
  const keys = new Map<string, string>(); // secret → signup id
  const outbox: OutboxMessage[] = [];

  const view = (s: Signup) => ({
    id: s.id,
    object: 'signup',
    email: s.email,
    company_name: s.company_name,
    status: s.status,
    verification:
      s.status === 'pending_verification'
        ? {
            channel: 'email',
            sent_to: mask(s.email),
            expires_in: Math.max(1, Math.ceil((s.code_expires_at - Date.now()) / 1000)),
          }
        : null,
    created_at: s.created_at,
  });

  const sendCode = (s: Signup) => {
    s.code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    s.code_expires_at = Date.now() + settings.codeTtlSeconds * 1000;
    outbox.push({
      to: s.email,
      subject: 'Your sandbox verification code',
      code: s.code,
      sent_at: new Date().toISOString(),
    });
  };

  /** Answers the step: what a script says first, else the real answer (after a scripted delay). */
  const answer = (
    step: SignupStepName,
    res: ServerResponse,
    real: () => { status: number; body: unknown },
  ): true => {
    const next = scripts[step].shift();
    if (next && 'status' in next) {
      json(res, next.status, next.body ?? refusal('scripted', `scripted ${next.status}`));
      return true;
    }
    const reply = () => {
      const { status, body } = real();
      json(res, status, body);
    };
    if (next) setTimeout(reply, next.delayMs);
    else reply();
    return true;
  };

  /** The first answer under an Idempotency-Key, every time the key comes back. */
  const idempotent = (
    key: string | undefined,
    scope: string,
    make: () => { status: number; body: unknown },
  ) => {
    if (!key) return make();
    const stored = byIdempotencyKey.get(`${scope}:${key}`);
    if (stored) return stored;
    const made = make();
    if (made.status < 500) byIdempotencyKey.set(`${scope}:${key}`, made);
    return made;
  };

  const handle = (request: InboundRequest, res: ServerResponse): boolean => {
    const url = new URL(request.url, 'http://mock');
    if (!url.pathname.startsWith('/sandbox/')) return false;
    let body: Record<string, unknown> = {};
    try {
      const parsed: unknown = request.body.length ? JSON.parse(request.body.toString('utf8')) : {};
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
        body = parsed as Record<string, unknown>;
    } catch {
      json(res, 400, refusal('invalid_json', 'The body is not JSON'));
      return true;
    }
    const idempotencyKey = request.headers['idempotency-key'] as string | undefined;
    const path = url.pathname;
    const one = /^\/sandbox\/signups\/([^/]+)(\/verification|\/api_keys)?$/.exec(path);

    if (request.method === 'GET' && path === '/sandbox/outbox') {
      const to = url.searchParams.get('to');
      json(res, 200, { messages: outbox.filter((m) => !to || m.to === to) });
      return true;
    }
    if (path === '/sandbox/settings' && (request.method === 'GET' || request.method === 'PATCH')) {
      const ttl = body.code_ttl_seconds;
      if (request.method === 'PATCH' && typeof ttl === 'number' && Number.isInteger(ttl) && ttl > 0)
        settings.codeTtlSeconds = ttl;
      if (request.method === 'PATCH' && typeof body.verification === 'boolean')
        settings.verification = body.verification;
      if (request.method === 'PATCH' && typeof body.outage === 'boolean') settings.outage = body.outage;
      json(res, 200, {
        code_ttl_seconds: settings.codeTtlSeconds,
        verification: settings.verification,
        outage: settings.outage,
      });
      return true;
    }
    if (settings.outage && path.startsWith('/sandbox/signups')) {
      json(res, 503, refusal('unavailable', 'The sandbox is down for maintenance'));
      return true;
    }
    if (request.method === 'POST' && path === '/sandbox/signups')
      return answer('signup', res, () =>
        idempotent(idempotencyKey, 'signup', () => {
          const email = body.email;
          if (typeof email !== 'string' || !email.includes('@'))
            return { status: 400, body: refusal('invalid_email', 'An email address is required') };
          const signup: Signup = {
            id: id('sgn'),
            email,
            company_name: typeof body.company_name === 'string' ? body.company_name : '',
            status: settings.verification ? 'pending_verification' : 'verified',
            code: null,
            code_expires_at: 0,
            created_at: new Date().toISOString(),
          };
          signups.set(signup.id, signup);
          if (settings.verification) sendCode(signup);
          return { status: 201, body: view(signup) };
        }),
      );
    const signup = one ? signups.get(decodeURIComponent(one[1])) : undefined;
    if (one && !signup) {
      json(res, 404, refusal('signup_not_found', 'No such sign-up'));
      return true;
    }
    if (request.method === 'GET' && one && !one[2]) {
      json(res, 200, view(signup!));
      return true;
    }
    if (request.method === 'POST' && one?.[2] === '/verification')
      return answer('verification', res, () => {
        const s = signup!;
        if (s.status === 'verified') return { status: 200, body: view(s) };
        if (Date.now() >= s.code_expires_at)
          return { status: 410, body: refusal('code_expired', 'The code has expired; sign up again') };
        if (body.code !== s.code)
          return { status: 422, body: refusal('code_invalid', 'The code is not right') };
        s.status = 'verified';
        s.code = null;
        return { status: 200, body: view(s) };
      });
    if (request.method === 'POST' && one?.[2] === '/api_keys')
      return answer('api_key', res, () =>
        idempotent(idempotencyKey, `key:${signup!.id}`, () => {
          if (signup!.status !== 'verified')
            return { status: 409, body: refusal('signup_not_verified', 'Verify the sign-up first') };
          const secret = `pk_sandbox_${randomBytes(16).toString('hex')}`;
          keys.set(secret, signup!.id);
          return { status: 201, body: { id: id('key'), object: 'api_key', secret, livemode: false } };
        }),
      );
    json(res, 404, refusal('not_found', 'No such sandbox route'));
    return true;
  };

  return {
    settings,
    handle,
    script(step, ...answers) {
      scripts[step].push(...answers);
    },
    codeFor(email) {
      return outbox.filter((m) => m.to === email).at(-1)?.code;
    },
    signups: () => [...signups.values()].map((s) => ({ id: s.id, email: s.email, status: s.status })),
    accepts: (key) => keys.has(key),
    issuedKeys: () => [...keys.keys()],
  };
}
