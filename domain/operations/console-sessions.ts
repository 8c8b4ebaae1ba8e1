// Operator console sign-ins: a random cookie value per sign-in, kept here only as its SHA-256, bound to
// the service credential it was opened with and to an absolute expiry. Sign-out deletes the row.
import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';

const sessionRow = z.object({ operator: z.string(), credential_digest: z.string(), expires_at: z.string() });
export type ConsoleSession = z.infer<typeof sessionRow>;

export const sha256Hex = (value: string): string => createHash('sha256').update(value).digest('hex');

/** Opens a session and returns the cookie value; the database never sees it, only its hash. */
export async function openConsoleSession(
  db: CommonQueryMethods,
  input: { operator: string; credentialDigest: string; ttlMs: number },
): Promise<{ token: string; expiresAt: string }> {
  const token = randomBytes(32).toString('base64url');
  // Sign-ins are rare, so each one also clears the sessions that have run out.
  await db.query(sql.unsafe`DELETE FROM console_sessions WHERE expires_at < now()`);
  const expiresAt = await db.oneFirst(sql.type(z.object({ expires_at: z.string() }))`
    INSERT INTO console_sessions (token_hash, operator, credential_digest, expires_at)
    VALUES (${sha256Hex(token)}, ${input.operator}, ${input.credentialDigest}, now() + make_interval(secs => ${input.ttlMs / 1000}))
    RETURNING expires_at`);
  return { token, expiresAt };
}

/** The live session behind a cookie value, or null (unknown, expired or signed out). */
export async function findConsoleSession(
  db: CommonQueryMethods,
  token: string,
): Promise<ConsoleSession | null> {
  return db.maybeOne(sql.type(sessionRow)`
    SELECT operator, credential_digest, expires_at FROM console_sessions
    WHERE token_hash = ${sha256Hex(token)} AND expires_at > now()`);
}

export async function closeConsoleSession(db: CommonQueryMethods, token: string): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM console_sessions WHERE token_hash = ${sha256Hex(token)}`);
}
