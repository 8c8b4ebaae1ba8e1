// The gateway's Ed25519 receipt signing keys: created on first use, rotated by adding a newer key, and
// all published (public halves only) so any receipt verifies offline. Private keys are sealed at rest.
import { sql } from 'slonik';
import { z } from 'zod';
import type { KeyObject } from 'node:crypto';
import type { CommonQueryMethods } from '../../runtime/database';
import { open, seal, type KeyRing } from '../crypto/secret-box';
import { sortableId } from '../ids';
import { generateEd25519, privateKeyOf } from './signatures';

export const keyRow = z.object({
  kid: z.string(),
  public_key: z.string(),
  private_key_sealed: z.string(),
  created_at: z.string(),
  retired_at: z.string().nullable(),
});
const publicRow = keyRow.omit({ private_key_sealed: true });
export type PublicSigningKey = z.infer<typeof publicRow>;

const aad = (kid: string) => `receipt-signing-key:${kid}`;
const opened = new Map<string, KeyObject>();

export interface SigningKey {
  kid: string;
  publicKey: string;
  privateKey: KeyObject;
}

async function insertKey(
  db: CommonQueryMethods,
  ring: KeyRing,
): Promise<{ kid: string; public_key: string }> {
  const pair = generateEd25519();
  const kid = sortableId('rsk');
  await db.query(sql.unsafe`
    INSERT INTO receipt_signing_keys (kid, public_key, private_key_sealed) VALUES (${kid}, ${pair.publicKey}, ${seal(ring, pair.privateKeyPkcs8, aad(kid))})`);
  return { kid, public_key: pair.publicKey };
}

/** The query of the key that signs now (the newest unretired): for a caller that reads it with other rows. */
export const CURRENT_SIGNING_KEY = sql.fragment`
      SELECT kid, public_key, private_key_sealed, created_at, retired_at FROM receipt_signing_keys
      WHERE retired_at IS NULL ORDER BY created_at DESC, kid DESC LIMIT 1`;

/** The signing key of a row read by `CURRENT_SIGNING_KEY`, its private half opened once per process. */
export function openSigningKey(
  ring: KeyRing,
  row: Pick<z.infer<typeof keyRow>, 'kid' | 'public_key' | 'private_key_sealed'>,
): SigningKey {
  let key = opened.get(`${row.kid}:${row.private_key_sealed}`);
  if (!key) {
    key = privateKeyOf(open(ring, row.private_key_sealed, aad(row.kid)));
    opened.set(`${row.kid}:${row.private_key_sealed}`, key);
  }
  return { kid: row.kid, publicKey: row.public_key, privateKey: key };
}

/** The key that signs now (the newest unretired), created on first use. */
export async function currentSigningKey(db: CommonQueryMethods, ring: KeyRing): Promise<SigningKey> {
  for (let tries = 0; tries < 2; tries++) {
    // The advisory lock makes concurrent first uses create one key, not several.
    const row = await db.maybeOne(sql.type(keyRow)`${CURRENT_SIGNING_KEY}`);
    if (row) return openSigningKey(ring, row);
    await db.query(
      sql.unsafe`SELECT pg_advisory_xact_lock(hashtextextended('receipt-signing-key-create', 0))`,
    );
    const again = await db.maybeOneFirst(
      sql.type(
        z.object({ kid: z.string() }),
      )`SELECT kid FROM receipt_signing_keys WHERE retired_at IS NULL LIMIT 1`,
    );
    if (!again) await insertKey(db, ring);
  }
  throw new Error('no receipt signing key could be created');
}

/** Adds a newer key and retires the others from signing; they stay published for verification. */
/** Run in a transaction, so no moment is left without a signing key. */
export async function rotateSigningKey(
  tx: CommonQueryMethods,
  ring: KeyRing,
): Promise<{ kid: string; public_key: string; retired: string[] }> {
  // The same lock as a first use's, so a rotation and a first use never leave two current keys.
  await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtextextended('receipt-signing-key-create', 0))`);
  const retired = await tx.anyFirst(sql.type(z.object({ kid: z.string() }))`
    UPDATE receipt_signing_keys SET retired_at = now() WHERE retired_at IS NULL RETURNING kid`);
  return { ...(await insertKey(tx, ring)), retired: [...retired] };
}

export async function publishedSigningKeys(db: CommonQueryMethods): Promise<PublicSigningKey[]> {
  const rows = await db.any(
    sql.type(
      publicRow,
    )`SELECT kid, public_key, created_at, retired_at FROM receipt_signing_keys ORDER BY created_at, kid`,
  );
  return [...rows];
}
