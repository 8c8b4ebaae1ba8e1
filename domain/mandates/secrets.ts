// The versioned HMAC secrets that sign mandates and consent records. Stored sealed in
// mandate_signing_secrets; the highest version signs, every version verifies, so a rotation never
// invalidates what was signed before it. Opened secrets are cached per process by version.
import { randomBytes } from 'node:crypto';
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import { open, seal, type KeyRing } from '../crypto/secret-box';

export interface SigningSecret {
  version: number;
  secret: Buffer;
}

const secretRow = z.object({ version: z.number(), secret_sealed: z.string(), created_at: z.string() });
const associatedData = (version: number) => `mandate-signing-secret:v${version}`;

// Keyed by version and sealed text, so a test database or a re-sealed row never serves a stale secret.
const opened = new Map<string, Buffer>();

function openSecret(ring: KeyRing, row: { version: number; secret_sealed: string }): SigningSecret {
  const cacheKey = `${row.version}:${row.secret_sealed}`;
  let secret = opened.get(cacheKey);
  if (!secret) {
    secret = Buffer.from(open(ring, row.secret_sealed, associatedData(row.version)), 'base64');
    opened.set(cacheKey, secret);
  }
  return { version: row.version, secret };
}

async function insertVersion(db: CommonQueryMethods, ring: KeyRing, version: number): Promise<boolean> {
  const sealed = seal(ring, randomBytes(32).toString('base64'), associatedData(version));
  // ON CONFLICT keeps an enclosing transaction usable when another process created the version first.
  const inserted = await db.maybeOne(sql.type(z.object({ version: z.number() }))`
    INSERT INTO mandate_signing_secrets (version, secret_sealed) VALUES (${version}, ${sealed})
    ON CONFLICT (version) DO NOTHING RETURNING version`);
  return inserted !== null;
}

/** The secret that signs now: the highest version, created as version 1 on first use. */
export async function currentSigningSecret(db: CommonQueryMethods, ring: KeyRing): Promise<SigningSecret> {
  for (let tries = 0; tries < 2; tries++) {
    const row = await db.maybeOne(sql.type(secretRow)`
      SELECT version, secret_sealed, created_at FROM mandate_signing_secrets ORDER BY version DESC LIMIT 1`);
    if (row) return openSecret(ring, row);
    await insertVersion(db, ring, 1);
  }
  throw new Error('no mandate signing secret could be created');
}

/** A given version's secret, for verification; null when that version never existed. */
export async function signingSecret(
  db: CommonQueryMethods,
  ring: KeyRing,
  version: number,
): Promise<SigningSecret | null> {
  const row = await db.maybeOne(sql.type(secretRow)`
    SELECT version, secret_sealed, created_at FROM mandate_signing_secrets WHERE version = ${version}`);
  return row ? openSecret(ring, row) : null;
}

/** Adds the next version; from then on it signs, and every earlier version keeps verifying. */
export async function rotateSigningSecret(
  db: CommonQueryMethods,
  ring: KeyRing,
): Promise<{ version: number; created_at: string }> {
  for (;;) {
    const latest = await db.oneFirst(
      sql.type(
        z.object({ version: z.number().nullable() }),
      )`SELECT max(version) AS version FROM mandate_signing_secrets`,
    );
    const next = (latest ?? 0) + 1;
    if (await insertVersion(db, ring, next)) {
      const row = await db.one(
        sql.type(
          secretRow,
        )`SELECT version, secret_sealed, created_at FROM mandate_signing_secrets WHERE version = ${next}`,
      );
      return { version: row.version, created_at: row.created_at };
    }
  }
}

export async function listSigningSecretVersions(
  db: CommonQueryMethods,
): Promise<Array<{ version: number; created_at: string }>> {
  const rows = await db.any(sql.type(z.object({ version: z.number(), created_at: z.string() }))`
    SELECT version, created_at FROM mandate_signing_secrets ORDER BY version`);
  return [...rows];
}
