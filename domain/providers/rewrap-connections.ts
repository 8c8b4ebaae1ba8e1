// Key-encryption-key rotation for connection secrets: walks the rows whose data key is still wrapped
// under an older key and re-wraps each data key under the current one. The sealed secret is untouched,
// every row opens before, during and after (the old key stays configured until the walk reports 0 left),
// and a row rotated meanwhile by its owner is skipped, never overwritten.
import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool } from '../../runtime/database';
import { connectionContext } from '../vault/envelope';
import { SealBroken, type KeyService } from '../vault/key-service';

const pending = z.object({
  id: z.string(),
  org_id: z.string(),
  project_id: z.string(),
  secret_wrapped_key: z.string(),
  secret_key_ref: z.string(),
});

export interface RewrapReport {
  rewrapped: number;
  /** Rows whose wrapped key no longer opens under their own context (moved or altered); left as they are. */
  unreadable: string[];
  remaining: number;
  key_ref: string;
}

export async function rewrapConnections(
  db: DatabasePool,
  keys: KeyService,
  batchSize = 100,
): Promise<RewrapReport> {
  const current = keys.currentKeyRef();
  const rows = await db.any(sql.type(pending)`
    SELECT id, org_id, project_id, secret_wrapped_key, secret_key_ref FROM provider_connections
    WHERE secret_key_ref IS NOT NULL AND secret_key_ref <> ${current}
    ORDER BY id LIMIT ${batchSize}`);
  let rewrapped = 0;
  const unreadable: string[] = [];
  for (const row of rows) {
    let next: { wrapped: string; keyRef: string };
    try {
      next = await keys.rewrap(
        row.secret_wrapped_key,
        row.secret_key_ref,
        connectionContext(row.org_id, row.project_id, row.id),
      );
    } catch (error) {
      if (!(error instanceof SealBroken)) throw error;
      unreadable.push(row.id);
      continue;
    }
    const updated = await db.query(sql.unsafe`
      UPDATE provider_connections SET secret_wrapped_key = ${next.wrapped}, secret_key_ref = ${next.keyRef}
      WHERE id = ${row.id} AND secret_wrapped_key = ${row.secret_wrapped_key} AND secret_key_ref = ${row.secret_key_ref}`);
    rewrapped += updated.rowCount;
  }
  const remaining = await db.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM provider_connections WHERE secret_key_ref IS NOT NULL AND secret_key_ref <> ${current}`);
  return { rewrapped, unreadable, remaining, key_ref: current };
}
