// Stops the run's PostgreSQL (when the run started one) and removes the run's directory (its data, the
// workflow bundle): a whole run's database reaches gigabytes, and runs would otherwise fill the disk.
import { rmSync } from 'node:fs';
import type { RunningPostgres } from '../../local/postgres';

export default async function globalTeardown(): Promise<void> {
  const state = globalThis as Record<string, unknown>;
  const postgres = state.__gatewayPostgres as RunningPostgres | undefined;
  await postgres?.stop();
  const root = state.__gatewayTestRoot as string | undefined;
  if (root) rmSync(root, { recursive: true, force: true });
}
