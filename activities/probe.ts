// The probe activity: one round trip to PostgreSQL, reporting the server clock and the schema version.
import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool } from '../runtime/database';
import type { ProbeResult } from '../contracts/probe';

export function probeActivities(db: DatabasePool) {
  return {
    async probeDatabase(): Promise<ProbeResult> {
      const row = await db.one(sql.type(
        z.object({ database_time: z.string(), schema_version: z.string().nullable() }),
      )`
        SELECT now() AS database_time, (SELECT max(version) FROM schema_migrations) AS schema_version`);
      return row;
    },
  };
}
