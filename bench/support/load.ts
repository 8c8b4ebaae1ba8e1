// A closed-loop load generator: `concurrency` workers each send requests back to back until
// `total` are done; reports throughput and latency percentiles. Loopback only, bounded in count.
import { performance } from 'node:perf_hooks';

export interface LoadResult {
  label: string;
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
}

/** What the child-process HTTP load generator is told to send. */
export interface HttpLoadOptions {
  label: string;
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  total: number;
  concurrency: number;
  warmup?: number;
  /** The status every answer should carry (a 402 challenge, say); by default any status under 400. */
  expectStatus?: number;
}

/** The rotating-body load generator's options: one body per request, cycling through `bodies` (and `url` when a list). */
export interface RotatingLoadOptions {
  label: string;
  url: string | string[];
  method: string;
  headers: Record<string, string>;
  bodies: string[];
  total: number;
  concurrency: number;
  warmup?: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export async function runLoad(
  label: string,
  options: { total: number; concurrency: number },
  send: (i: number, lane: number) => Promise<boolean>,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const started = performance.now();
  const lane = async (_: unknown, laneIndex: number) => {
    for (;;) {
      const i = next++;
      if (i >= options.total) return;
      const t0 = performance.now();
      const ok = await send(i, laneIndex).catch(() => false);
      latencies.push(performance.now() - t0);
      if (!ok) errors++;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, lane));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    label,
    requests: options.total,
    errors,
    seconds,
    rps: options.total / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies[latencies.length - 1] ?? 0,
  };
}

export function formatResult(result: LoadResult): string {
  return `${result.label.padEnd(44)} ${result.rps.toFixed(0).padStart(7)} req/s   p50 ${result.p50.toFixed(2).padStart(7)} ms   p99 ${result.p99.toFixed(2).padStart(7)} ms   errors ${result.errors}/${result.requests}`;
}

export function machineLine(): string {
  const os = require('node:os') as typeof import('node:os');
  return `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`;
}
