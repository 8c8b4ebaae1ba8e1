// The production worker entry started before its Temporal server can be reached: it keeps retrying its
// first connection with growing delays, logging each retry, and polls once the server appears; a stop
// during that wait ends it. The server "appears" as a loopback port that starts forwarding to the
// test's Temporal server.
import net from 'node:net';
import type { Logger } from '../runtime/logger';
import { startWorker, type RunningWorker } from '../worker/main';
import { freePort } from './support/free-port';
import { startGateway, type Gateway } from './support/harness';

let gw: Gateway;
let worker: RunningWorker | undefined;
let forwarder: { stop(): Promise<void> } | undefined;
beforeAll(async () => {
  // No harness worker: whatever answers the readiness probe is the worker started here.
  gw = await startGateway({ worker: false });
});
afterAll(async () => {
  await worker?.stop();
  await forwarder?.stop();
  await gw?.stop();
});

/** Listens on `port` and pipes each connection to `target` (host:port). */
async function forward(port: number, target: string): Promise<{ stop(): Promise<void> }> {
  const [host, targetPort] = [target.slice(0, target.lastIndexOf(':')), Number(target.split(':').pop())];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      socket.once('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve, reject) =>
    server.once('error', reject).listen(port, '127.0.0.1', resolve),
  );
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/** A logger keeping the worker's connection retries; `after(n)` resolves once n have been logged. */
function retryLog() {
  const retries: Array<Record<string, unknown>> = [];
  const waiting: Array<{ count: number; resolve: () => void }> = [];
  const quiet = () => undefined;
  const log: Logger = {
    debug: quiet,
    info: quiet,
    error: quiet,
    warn(message, fields) {
      if (!message.startsWith('temporal unreachable')) return;
      retries.push(fields ?? {});
      for (const w of waiting) if (retries.length >= w.count) w.resolve();
    },
  };
  const after = (count: number) =>
    new Promise<void>((resolve) => {
      if (retries.length >= count) resolve();
      else waiting.push({ count, resolve });
    });
  return { log, retries, after };
}

const workerConfig = () => ({
  ...gw.config,
  temporal: { ...gw.config.temporal, taskQueue: gw.taskQueue },
});

it('retries an unreachable Temporal server with doubling delays, then polls once the server appears', async () => {
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  const { log, retries, after } = retryLog();
  const starting = startWorker({ config: workerConfig(), temporalAddress: address, log });
  await after(2);
  // Still waiting, not exited: nothing polls the queue yet.
  const before = await gw.operator('GET', '/v1/ops/readiness?timeout_ms=500');
  expect([before.status, before.body.error?.code]).toEqual([503, 'worker_unavailable']);

  forwarder = await forward(port, gw.env.address);
  worker = await starting;
  expect(retries.slice(0, 2)).toEqual([
    { temporal_address: address, attempt: 1, retry_in_ms: 500, error: expect.stringMatching(/refused/i) },
    { temporal_address: address, attempt: 2, retry_in_ms: 1000, error: expect.stringMatching(/refused/i) },
  ]);
  const ready = await gw.operator('GET', '/v1/ops/readiness');
  expect([ready.status, ready.body.worker]).toEqual([200, 'polling']);
});

it('ends a start still waiting for the server when it is stopped', async () => {
  const { log, after } = retryLog();
  const stopping = new AbortController();
  const starting = startWorker({
    config: workerConfig(),
    temporalAddress: `127.0.0.1:${await freePort()}`,
    log,
    signal: stopping.signal,
  });
  await after(1);
  stopping.abort();
  await expect(starting).rejects.toMatchObject({ name: 'AbortError' });
});
