// Child-process HTTP load generator, so the client does not share an event loop with the server
// it measures. Usage: tsx bench/support/http-load.ts '<json options>' → prints a LoadResult as JSON.
import { runLoad, type HttpLoadOptions } from './load';
import { encodeRequest, lanesFor } from './socket-client';

const options = JSON.parse(process.argv[2] ?? '{}') as HttpLoadOptions;
const target = new URL(options.url);
const lanes = lanesFor(target, options.concurrency);
const request = encodeRequest({
  method: options.method ?? 'GET',
  url: target,
  headers: options.headers ?? {},
  body: options.body,
});

async function send(_: number, lane: number): Promise<boolean> {
  const status = await lanes.send(lane, request);
  return options.expectStatus === undefined ? status < 400 : status === options.expectStatus;
}

async function main(): Promise<void> {
  if (options.warmup)
    await runLoad('warmup', { total: options.warmup, concurrency: options.concurrency }, send);
  const result = await runLoad(
    options.label,
    { total: options.total, concurrency: options.concurrency },
    send,
  );
  process.stdout.write(`${JSON.stringify(result)}\n`);
  lanes.close();
}

void main();
