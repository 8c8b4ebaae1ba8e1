// Sends one webhook attempt over HTTP(S): a POST with a hard overall timeout, redirects never followed,
// keep-alive sockets shared across attempts, and (in live) every resolved address checked so a public
// name that resolves to a private address is refused before a byte is sent.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { TransportError } from '../../domain/webhooks/attempt-outcome';
import { isPrivateAddress } from '../../domain/webhooks/url-policy';

export interface SendRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  refusePrivateAddresses: boolean;
  /** Bytes of the response body kept for the delivery row. */
  keepBytes: number;
}

export interface SendResult {
  answer: { status: number; headers: Record<string, string>; body: string; truncated: boolean } | null;
  transportError: TransportError | null;
  durationMs: number;
}

// Bytes read past `keepBytes` before the socket is dropped rather than drained for reuse.
const DRAIN_LIMIT = 64 * 1024;

const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64 }),
};

class RefusedAddress extends Error {
  readonly code = 'EADDRREFUSEDBYPOLICY';
}

/** A DNS lookup that fails when any resolved address is private. */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const list = addresses as LookupAddress[];
    if (list.length === 0 || list.some((entry) => isPrivateAddress(entry.address))) {
      return callback(new RefusedAddress(`${hostname} resolves to a private address`), '', 0);
    }
    // @types/node's LookupFunction names only the one-address callback; with `all`, Node's agent expects
    // the list.
    if ((options as { all?: boolean }).all)
      return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
    callback(null, list[0].address, list[0].family);
  });
};

function classify(error: NodeJS.ErrnoException): TransportError {
  if (error instanceof RefusedAddress) return 'address_refused';
  if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') return 'dns_failed';
  if (error.code?.startsWith('ERR_TLS') || error.code?.includes('CERT') || /SSL|TLS/i.test(error.code ?? ''))
    return 'tls_failed';
  return 'connection_failed';
}

export function sendWebhook(request: SendRequest): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return Promise.resolve({ answer: null, transportError: 'invalid_url', durationMs: 0 });
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (request.refusePrivateAddresses && isIP(host) !== 0 && isPrivateAddress(host)) {
    return Promise.resolve({ answer: null, transportError: 'address_refused', durationMs: 0 });
  }
  const client = url.protocol === 'https:' ? https : http;
  const body = Buffer.from(request.body);

  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: elapsed() });
    };
    const req = client.request(url, {
      method: 'POST',
      agent: url.protocol === 'https:' ? agents.https : agents.http,
      headers: { ...request.headers, 'content-length': String(body.length) },
      ...(request.refusePrivateAddresses ? { lookup: publicOnlyLookup } : {}),
    });
    const timer = setTimeout(() => {
      finish({ answer: null, transportError: 'timeout' });
      req.destroy();
    }, request.timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) =>
      finish({ answer: null, transportError: classify(error) }),
    );
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      let seen = 0;
      res.on('data', (chunk: Buffer) => {
        seen += chunk.length;
        if (kept < request.keepBytes) {
          const slice = chunk.subarray(0, request.keepBytes - kept);
          chunks.push(slice);
          kept += slice.length;
        }
        if (seen > request.keepBytes + DRAIN_LIMIT) res.destroy();
      });
      const done = () => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers))
          if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
        finish({
          answer: {
            status: res.statusCode ?? 0,
            headers,
            body: Buffer.concat(chunks).toString('utf8'),
            truncated: seen > kept,
          },
          transportError: null,
        });
      };
      res.on('end', done);
      res.on('close', done);
      res.on('error', done);
    });
    req.end(body);
  });
}
