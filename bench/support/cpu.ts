// CPU time per request of one load, split by who spent it: this process (the API and the worker, and the
// mocks when a stack runs them in process), the stack's Temporal server and PostgreSQL (every backend on
// the machine), read from /proc around the load.
import { readdirSync, readFileSync } from 'node:fs';
import type { LoadResult } from './load';
import type { BenchStack } from './stack';

/** CPU time (ms) a process has used so far, from /proc; with `reaped`, its exited children's too. */
function cpuMsOf(pid: number, reaped = false): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    const ticks =
      Number(fields[11]) + Number(fields[12]) + (reaped ? Number(fields[13]) + Number(fields[14]) : 0);
    return (ticks * 1000) / 100;
  } catch {
    return 0; // a backend that exited between the listing and the read
  }
}

/**
 * CPU time (ms) used so far by every PostgreSQL process on the machine: the live backends, and through the
 * postmaster's reaped-children counters the backends that have exited since (a closed pool connection).
 */
function postgresCpuMs(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres')
        total += cpuMsOf(Number(entry), true);
    } catch {
      // gone already
    }
  }
  return total;
}

export interface Costed extends LoadResult {
  processMs: number;
  serverMs: number;
  postgresMs: number;
}

export async function costed(stack: BenchStack, run: () => Promise<LoadResult>): Promise<Costed> {
  const process0 = process.cpuUsage();
  const server0 = cpuMsOf(stack.temporal.pid);
  const pg0 = postgresCpuMs();
  const result = await run();
  const used = process.cpuUsage(process0);
  return {
    ...result,
    processMs: (used.user + used.system) / 1000 / result.requests,
    serverMs: (cpuMsOf(stack.temporal.pid) - server0) / result.requests,
    postgresMs: (postgresCpuMs() - pg0) / result.requests,
  };
}

export const costLine = (r: Costed): string =>
  `CPU/req: process ${r.processMs.toFixed(1)} ms, Temporal ${r.serverMs.toFixed(1)} ms, PostgreSQL ${r.postgresMs.toFixed(1)} ms`;
