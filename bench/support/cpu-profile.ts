// Samples this process's CPU while a load runs (the inspector, as `node --cpu-prof` would) and prints where
// the time went: self time per file (packages as `nm:<package>`) and per function.
import { Session } from 'node:inspector/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Runs `action` under the sampling profiler and answers its result and the profile. */
export async function profiled<T>(action: () => Promise<T>): Promise<[T, Profile]> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');
  try {
    const result = await action();
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile };
    return [result, profile];
  } finally {
    session.disconnect();
  }
}

/** Prints self time by file and by function, the top `files` and `functions` of each. */
export function summarise(profile: Profile, files = 40, functions = 50): void {
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const byFile = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0;
    total += us;
    const { functionName, url, lineNumber } = node.callFrame;
    const file =
      url
        .replace(/^file:\/\//, '')
        .replace(/.*node_modules\//, 'nm:')
        .replace(`${process.cwd()}/`, '') || `(${functionName || 'native'})`;
    byFile.set(file, (byFile.get(file) ?? 0) + us);
    const name = `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
  }
  const top = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(
        ([k, v]) =>
          `${(v / 1000).toFixed(0).padStart(7)} ms ${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`,
      )
      .join('\n');
  console.log(
    `profile ${(total / 1000).toFixed(0)} ms\n-- self time by file\n${top(byFile, files)}\n-- self time by function\n${top(byFunction, functions)}`,
  );
}
