// Child-process HTTP load generator that sends a different body per request, rotating through a list
// (one per wallet, or one per attempt). Usage: tsx bench/support/rotating-load.ts <options.json path>.
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { runLoad, type RotatingLoadOptions } from './load';

const options = JSON.parse(readFileSync(process.argv[2], 'utf8')) as RotatingLoadOptions;
const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
const urls = (Array.isArray(options.url) ? options.url : [options.url]).map((u) => new URL(u));
let next = 0;

function send(): Promise<boolean> {
  const index = next++;
  const target = urls[index % urls.length];
  const body = options.bodies[index % options.bodies.length];
  return new Promise((resolve) => {
    const req = http.request(
      { agent, hostname: target.hostname, port: target.port, path: target.pathname, method: options.method, headers: { ...options.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve((res.statusCode ?? 500) < 400));
      },
    );
    req.on('error', () => resolve(false));
    req.end(body);
  });
}

async function main(): Promise<void> {
  if (options.warmup) await runLoad('warmup', { total: options.warmup, concurrency: options.concurrency }, send);
  const result = await runLoad(options.label, { total: options.total, concurrency: options.concurrency }, send);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  agent.destroy();
}

void main();
