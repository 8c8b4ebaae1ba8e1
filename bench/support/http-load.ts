// Child-process HTTP load generator, so the client does not share an event loop with the server
// it measures. Usage: tsx bench/support/http-load.ts '<json options>' → prints a LoadResult as JSON.
import http from 'node:http';
import { runLoad, type HttpLoadOptions } from './load';


const options = JSON.parse(process.argv[2] ?? '{}') as HttpLoadOptions;
const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
const target = new URL(options.url);

function send(): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.request(
      { agent, hostname: target.hostname, port: target.port, path: target.pathname + target.search, method: options.method ?? 'GET', headers: options.headers },
      (res) => {
        res.resume();
        res.on('end', () => resolve((res.statusCode ?? 500) < 400));
      },
    );
    req.on('error', () => resolve(false));
    req.end(options.body);
  });
}

async function main(): Promise<void> {
  if (options.warmup) await runLoad('warmup', { total: options.warmup, concurrency: options.concurrency }, send);
  const result = await runLoad(options.label, { total: options.total, concurrency: options.concurrency }, send);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  agent.destroy();
}

void main();
