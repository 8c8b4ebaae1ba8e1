// The base of the auth-type mock providers: a real HTTP(S) server that checks one credential injection
// on every request and refuses a wrong one with 401 in the provider's own words. Past the check it
// answers `GET /account` (what verify-connection reads), money tools' idempotent sends and status lookups
// (money-tools.ts), and echoes anything else. Tests can script the
// next answers (a 500, a redirect) to drive the gateway's error mapping.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { moneyTools, type MoneyTools } from './money-tools';
import type { InboundRequest } from './http-kit';

export type { InboundRequest };

/** null: the credential is right; a string: the provider's words refusing it. */
export type CredentialCheck = (request: InboundRequest) => string | null;
/** Rewrites the path the provider routes on (path_secret strips its secret segments); null refuses. */
export type PathOf = (request: InboundRequest) => string;

export interface ScriptedAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Answer only after this long: a slow provider, for calls that must still be in flight. */
  delayMs?: number;
}

export interface AuthMock {
  url: string;
  /** The sandbox's published valid credential, as a project would paste it. */
  credentials: Record<string, string>;
  /** The next answers, before any credential check. */
  script(...answers: ScriptedAnswer[]): void;
  /** How many requests passed and failed the credential check. */
  counts: { accepted: number; refused: number };
  /** The provider's side of money-moving tool calls: idempotency keys, status lookups, failure modes. */
  money: MoneyTools;
  stop(): Promise<void>;
}

export interface AuthMockOptions {
  check: CredentialCheck;
  credentials: Record<string, string>;
  account: { id: string; name: string; extras?: Record<string, unknown> };
  pathOf?: PathOf;
  tls?: https.ServerOptions;
  /** Extra routes answered before the credential check (an OAuth server's authorize and token endpoints). */
  open?: (request: InboundRequest, res: http.ServerResponse) => boolean;
}

function send(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body === undefined ? '' : JSON.stringify(body));
}

export async function startAuthMock(options: AuthMockOptions): Promise<AuthMock> {
  const scripted: ScriptedAnswer[] = [];
  const counts = { accepted: 0, refused: 0 };
  const money = moneyTools(send);
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: InboundRequest = {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks),
        socket: req.socket,
      };
      const next = scripted.shift();
      if (next?.delayMs) {
        setTimeout(() => send(res, next.status, next.body, next.headers), next.delayMs);
        return;
      }
      if (next) return send(res, next.status, next.body, next.headers);
      if (options.open?.(request, res)) return;
      const refusal = options.check(request);
      if (refusal !== null) {
        counts.refused++;
        return send(res, 401, { error: 'invalid_credentials', message: refusal });
      }
      counts.accepted++;
      const path = (options.pathOf ?? ((r) => r.url))(request);
      if (money.handle(request, path, res)) return;
      if (request.method === 'GET' && path.split('?')[0] === '/account')
        return send(res, 200, { ...options.account, extras: options.account.extras ?? {} });
      send(res, 200, { method: request.method, path, received_bytes: request.body.length });
    });
  };
  const server = options.tls ? https.createServer(options.tls, handler) : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const scheme = options.tls ? 'https' : 'http';
  return {
    url: `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`,
    credentials: options.credentials,
    script: (...answers) => {
      scripted.push(...answers);
    },
    counts,
    money: money.controls,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Constant-time-ish comparison is not needed in a mock; plain equality with a clear refusal is. */
