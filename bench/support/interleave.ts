// Same-run comparisons on a shared machine: the gateway and its baseline measured in alternating rounds
// (A B A B ...), each round's ratio taken from its own pair, and the median of those ratios reported with
// their spread, so load that drifts during the run weighs on both sides alike.
import { percentile, type LoadResult } from './load';

export interface Interleaved {
  label: string;
  ratios: number[];
  median: number;
  min: number;
  max: number;
}

/**
 * Runs `rounds` pairs of `subject` then `baseline` and answers the median of `ratio(subject, baseline)`
 * per pair.
 */
export async function interleaved(
  label: string,
  rounds: number,
  subject: (round: number) => Promise<LoadResult>,
  baseline: (round: number) => Promise<LoadResult>,
  ratio: (subject: LoadResult, baseline: LoadResult) => number,
): Promise<Interleaved> {
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const a = await subject(round);
    const b = await baseline(round);
    ratios.push(ratio(a, b));
  }
  const sorted = [...ratios].sort((x, y) => x - y);
  return {
    label,
    ratios,
    median: percentile(sorted, 50),
    min: sorted[0] ?? 0,
    max: sorted[sorted.length - 1] ?? 0,
  };
}

/** Throughput of the subject over the baseline's. */
export const throughputRatio = (subject: LoadResult, baseline: LoadResult): number =>
  subject.rps / baseline.rps;

/** Median latency of the subject over the baseline's. */
export const latencyRatio = (subject: LoadResult, baseline: LoadResult): number => subject.p50 / baseline.p50;

export function formatInterleaved(result: Interleaved, target: string): string {
  return `${result.label}: median ${result.median.toFixed(2)}x over ${result.ratios.length} interleaved rounds (spread ${result.min.toFixed(2)}-${result.max.toFixed(2)}: ${result.ratios.map((r) => r.toFixed(2)).join(' ')}) (target ${target})`;
}
