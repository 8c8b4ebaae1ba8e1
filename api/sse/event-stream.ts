// Server-sent events over a Koa response: numbered events, a heartbeat on a fixed interval while the
// stream is open, and a close a fixed delay after the terminal event (clients see the end, then EOF).
import { PassThrough } from 'node:stream';

export interface EventStream {
  stream: PassThrough;
  send(event: string, data: unknown): void;
  /** Sends the terminal event and closes the stream after `closeDelayMs`. */
  finish(event: string, data: unknown): void;
  closed(): boolean;
}

export function openEventStream(timings: { heartbeatMs: number; closeDelayMs: number }): EventStream {
  const stream = new PassThrough();
  let id = 0;
  let ended = false;
  const write = (event: string, data: unknown) => {
    if (ended || stream.destroyed) return;
    id += 1;
    stream.write(`id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  const heartbeat = setInterval(
    () => write('heartbeat', { at: new Date().toISOString() }),
    timings.heartbeatMs,
  );
  const stop = () => {
    clearInterval(heartbeat);
    ended = true;
  };
  stream.on('close', stop);
  // Tell the client how long to wait before reconnecting, and flush headers at once.
  stream.write(`retry: 2000\n\n`);
  return {
    stream,
    send: write,
    finish(event, data) {
      write(event, data);
      setTimeout(() => {
        stop();
        stream.end();
      }, timings.closeDelayMs).unref();
    },
    closed: () => ended || stream.destroyed,
  };
}
