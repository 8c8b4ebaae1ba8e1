// Stops the run's PostgreSQL (when the run started one).
import type { RunningPostgres } from '../../local/postgres';

export default async function globalTeardown(): Promise<void> {
  const postgres = (globalThis as Record<string, unknown>).__gatewayPostgres as RunningPostgres | undefined;
  await postgres?.stop();
}
