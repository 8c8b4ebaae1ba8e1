// Sends one request to a provider exactly as given (credential already injected): no redirects
// followed, a deadline on the whole exchange, a cap on the answer's size. Failures to get any answer
// are UpstreamUnreachable, so callers can tell "the provider said no" from "nobody answered".
import http from 'node:http';
import https from 'node:https';
import type { OutboundRequest } from '../auth';

export interface UpstreamAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  latencyMs: number;
}

export interface SendLimits {
  timeoutMs: number;
  maxResponseBytes: number;
  /** Pins the connection to an already checked address (the proxy resolves and checks it first). */
  lookupAddress?: { address: string; family: 4 | 6 };
}

export class UpstreamUnreachable extends Error {
  constructor(
    readonly reason: 'timeout' | 'network' | 'tls' | 'too_large',
    message: string,
  ) {
    super(message);
    this.name = 'UpstreamUnreachable';
  }
}

// Connections are kept alive between calls (a fresh TCP and TLS handshake per call was most of the
// proxy's overhead). Idle sockets close after 4 s, under the 5 s keep-alive most servers default to, so a
// request is rarely written to a socket the provider has just closed. The https agents key their pools by
// the TLS options too, so a client certificate never rides another connection's socket. Pinned (checked)
// requests get their own pools: a socket opened without the address check is never reused by one.
const keepAlive = { keepAlive: true, maxSockets: 256, maxFreeSockets: 64, timeout: 4_000 };
const agents = {
  direct: { http: new http.Agent(keepAlive), https: new https.Agent(keepAlive) },
  pinned: { http: new http.Agent(keepAlive), https: new https.Agent(keepAlive) },
};

export function sendUpstream(request: OutboundRequest, limits: SendLimits): Promise<UpstreamAnswer> {
  const started = process.hrtime.bigint();
  const secure = request.url.protocol === 'https:';
  return new Promise((resolve, reject) => {
    const options: https.RequestOptions = {
      method: request.method,
      headers: { ...request.headers, 'content-length': String(request.body.length) },
      timeout: limits.timeoutMs,
      agent: agents[limits.lookupAddress ? 'pinned' : 'direct'][secure ? 'https' : 'http'],
      ...(secure && request.tls
        ? Object.fromEntries(Object.entries(request.tls).filter(([, value]) => value))
        : {}),
      // Node may ask for all addresses (autoSelectFamily); either way only the checked one is offered.
      ...(limits.lookupAddress
        ? {
            lookup: (
              _host: string,
              opts: { all?: boolean },
              done: (
                e: Error | null,
                a: string | Array<{ address: string; family: number }>,
                f?: number,
              ) => void,
            ) =>
              opts?.all
                ? done(null, [
                    { address: limits.lookupAddress!.address, family: limits.lookupAddress!.family },
                  ])
                : done(null, limits.lookupAddress!.address, limits.lookupAddress!.family),
          }
        : {}),
    };
    // Settles once: a destroyed response may still emit 'end' (with what was read so far) after the
    // error that destroyed it, and that must not pass for the provider's whole answer.
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      reject(classify(error));
    };
    const req = (secure ? https : http).request(request.url, options as http.RequestOptions, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limits.maxResponseBytes) {
          const error = new UpstreamUnreachable(
            'too_large',
            `the provider's answer exceeded ${limits.maxResponseBytes} bytes`,
          );
          fail(error);
          // Already answered: the socket is dropped (never drained back into the pool) without a second error.
          req.destroy();
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => {
        if (settled) return;
        settled = true;
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks),
          latencyMs: Number((process.hrtime.bigint() - started) / 1_000_000n),
        });
      });
      res.on('error', fail);
    });
    const deadline = setTimeout(
      () => req.destroy(new UpstreamUnreachable('timeout', `no answer within ${limits.timeoutMs} ms`)),
      limits.timeoutMs,
    );
    req.on('close', () => clearTimeout(deadline));
    req.on('timeout', () =>
      req.destroy(new UpstreamUnreachable('timeout', `no answer within ${limits.timeoutMs} ms`)),
    );
    req.on('error', fail);
    req.end(request.body);
  });
}

function classify(error: Error): UpstreamUnreachable {
  if (error instanceof UpstreamUnreachable) return error;
  const code = (error as NodeJS.ErrnoException).code ?? '';
  // Node's TLS errors carry stable codes (ERR_SSL_*, CERT_*, DEPTH_ZERO_SELF_SIGNED_CERT, UNABLE_TO_*).
  const tls = /^(ERR_SSL|ERR_TLS|CERT_|DEPTH_ZERO|UNABLE_TO|SELF_SIGNED)/.test(code);
  return new UpstreamUnreachable(
    tls ? 'tls' : 'network',
    code ? `connection failed (${code})` : 'connection failed',
  );
}
