// A tiny JSON HTTP server for mock providers: parses the body, hands method/path/headers/body to a
// handler, writes its JSON answer. Loopback only.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MockRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

export interface MockResponse {
  status: number;
  body?: unknown;
}

export async function startJsonServer(
  handle: (request: MockRequest) => MockResponse | Promise<MockResponse>,
  port = 0,
): Promise<{ url: string; stop(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      let body: unknown;
      const raw = Buffer.concat(chunks).toString('utf8');
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        res
          .writeHead(400, { 'Content-Type': 'application/json' })
          .end(JSON.stringify({ error: 'invalid JSON' }));
        return;
      }
      const url = new URL(req.url ?? '/', 'http://mock');
      try {
        const answer = await handle({
          method: req.method ?? 'GET',
          path: url.pathname,
          query: url.searchParams,
          headers: req.headers,
          body,
        });
        res
          .writeHead(answer.status, { 'Content-Type': 'application/json' })
          .end(answer.body === undefined ? '' : JSON.stringify(answer.body));
      } catch (error) {
        res
          .writeHead(500, { 'Content-Type': 'application/json' })
          .end(JSON.stringify({ error: (error as Error).message }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Scripted failures shared by the mocks: the next `count` matching calls answer `status` with `body`. */
export class FaultQueue {
  private faults: MockResponse[] = [];

  push(status: number, body: unknown, count = 1): void {
    for (let i = 0; i < count; i++) this.faults.push({ status, body });
  }

  take(): MockResponse | undefined {
    return this.faults.shift();
  }

  clear(): void {
    this.faults = [];
  }
}
