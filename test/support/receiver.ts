// A webhook receiver on loopback for tests and benchmarks: records every request and answers with
// whatever the test scripts (status, headers, body, or a delay).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
}

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** Decides each answer; the default is 200. */
  answer: (request: ReceivedRequest, index: number) => ScriptedAnswer;
  /** Resolves once `count` requests (in total) have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  stop(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const receiver: Receiver = {
    url: '',
    requests: [],
    answer: () => ({ status: 200, body: 'ok' }),
    waitFor(count, timeoutMs = 20_000) {
      if (receiver.requests.length >= count) return Promise.resolve(receiver.requests);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${receiver.requests.length} of ${count} requests`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(receiver.requests);
          },
        });
      });
    },
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: ReceivedRequest = {
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      const index = receiver.requests.length;
      receiver.requests.push(request);
      const scripted = receiver.answer(request, index);
      const reply = () => {
        res.writeHead(scripted.status, { 'content-type': 'text/plain', ...scripted.headers });
        res.end(scripted.body ?? '');
        for (const waiter of waiters.splice(0)) {
          if (receiver.requests.length >= waiter.count) waiter.resolve();
          else waiters.push(waiter);
        }
      };
      // A held answer never keeps the test process alive on its own.
      if (scripted.delayMs) setTimeout(reply, scripted.delayMs).unref();
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}
