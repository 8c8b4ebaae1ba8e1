// Small HTTP helpers the mock provider servers share: JSON in, JSON out, and a listen/stop pair that
// also cuts connections a scripted "timeout" is still holding open.
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';

/** A request a mock provider received, as its checks read it. */
export interface InboundRequest {
  method: string;
  /** Path with query string, as sent. */
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
  socket: IncomingMessage['socket'] | TLSSocket;
}

export async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed || res.writableEnded) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export interface Listening {
  url: string;
  /** Every request that reached the server, whatever its route: what tests count a provider's calls by. */
  served(): number;
  stop(): Promise<void>;
}

export async function listen(handler: RequestListener, port = 0): Promise<Listening> {
  let served = 0;
  const server = createServer((req, res) => {
    served++;
    return handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    served: () => served,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
