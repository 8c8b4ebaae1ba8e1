// Child-process HTTP load generator that sends a different body per request, rotating through a list
// (one per wallet, or one per attempt). Usage: tsx bench/support/rotating-load.ts <options.json path>.
import { readFileSync } from 'node:fs';
import { runLoad, type RotatingLoadOptions } from './load';
import { encodeRequest, lanesFor } from './socket-client';

const options = JSON.parse(readFileSync(process.argv[2], 'utf8')) as RotatingLoadOptions;
const urls = (Array.isArray(options.url) ? options.url : [options.url]).map((u) => new URL(u));
const lanes = lanesFor(urls[0], options.concurrency);
let next = 0;

async function send(_: number, lane: number): Promise<boolean> {
  const index = next++;
  const body = options.bodies[index % options.bodies.length];
  const bytes = encodeRequest({
    method: options.method,
    url: urls[index % urls.length],
    headers: options.headers,
    body: body === '' ? undefined : body,
  });
  return (await lanes.send(lane, bytes)) < 400;
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
