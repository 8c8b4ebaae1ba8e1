// Applies schema/sql/NNNN_*.sql in order, once each, recording them in schema_migrations.
// Forward-only: a file already applied is never run again, and editing one is refused.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool } from './database';
import { PROJECT_ROOT } from './project-root';

const MIGRATIONS_DIR = path.join(PROJECT_ROOT, 'schema', 'sql');
// One advisory lock id for the whole migration run, so two processes starting together take turns.
const MIGRATION_LOCK = 741_852_963;

export interface MigrationFile {
  version: string;
  name: string;
  checksum: string;
  text: string;
}

export function readMigrations(dir = MIGRATIONS_DIR): MigrationFile[] {
  return readdirSync(dir)
    .filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file))
    .sort()
    .map((file) => {
      const text = readFileSync(path.join(dir, file), 'utf8');
      return {
        version: file.slice(0, 4),
        name: file.replace(/\.sql$/, ''),
        checksum: createHash('sha256').update(text).digest('hex'),
        text,
      };
    });
}

const appliedRow = z.object({ version: z.string(), checksum: z.string() });

export async function migrate(pool: DatabasePool, dir = MIGRATIONS_DIR): Promise<string[]> {
  const files = readMigrations(dir);
  return pool.connect(async (connection) => {
    await connection.query(sql.unsafe`SELECT pg_advisory_lock(${MIGRATION_LOCK})`);
    try {
      await connection.query(sql.unsafe`
        CREATE TABLE IF NOT EXISTS schema_migrations (
          version text PRIMARY KEY,
          name text NOT NULL,
          checksum text NOT NULL,
          applied_at timestamptz NOT NULL DEFAULT now()
        )`);
      const applied = await connection.any(
        sql.type(appliedRow)`SELECT version, checksum FROM schema_migrations`,
      );
      const known = new Map(applied.map((row) => [row.version, row.checksum]));
      const ran: string[] = [];
      for (const file of files) {
        const checksum = known.get(file.version);
        if (checksum !== undefined) {
          if (checksum !== file.checksum) {
            throw new Error(
              `migration ${file.name} changed after it was applied; add a new migration instead`,
            );
          }
          continue;
        }
        await connection.transaction(async (tx) => {
          // Migration files are trusted repository content, so their text is the one raw SQL we run; slonik's
          // sql.unsafe is only a template tag, so the text goes in as a one-part template.
          await tx.query(sql.unsafe([file.text] as unknown as TemplateStringsArray));
          await tx.query(sql.unsafe`
            INSERT INTO schema_migrations (version, name, checksum) VALUES (${file.version}, ${file.name}, ${file.checksum})`);
        });
        ran.push(file.name);
      }
      return ran;
    } finally {
      await connection.query(sql.unsafe`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`);
    }
  });
}
