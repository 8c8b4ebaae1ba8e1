// Each consumer's receipt secret: the key of the HMAC `receipt_sig`. Created or rotated on request and
// shown exactly once; stored sealed. Without one a spend still settles but seals no receipt.
import { randomBytes } from 'node:crypto';
import { sql, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import type { CommonQueryMethods } from '../../runtime/database';
import { open, seal, type KeyRing } from '../crypto/secret-box';
import type { EventScope } from '../events/record';

export const secretRow = z.object({ version: z.number(), secret_sealed: z.string(), created_at: z.string() });
const aad = (consumerId: string, version: number) => `consumer-receipt-secret:${consumerId}:v${version}`;

export interface ReceiptSecret {
  version: number;
  secret: Buffer;
}

/** Prefix marks it as a receipt secret in logs and secret scanners; the rest is 32 random bytes. */
const SECRET_PREFIX = 'rsec_';

function decode(text: string): Buffer {
  return Buffer.from(text.slice(SECRET_PREFIX.length), 'base64url');
}

/** Creates the next version and returns the secret in clear, the only time it is ever shown. */
export async function rotateReceiptSecret(
  tx: CommonQueryMethods,
  ring: KeyRing,
  scope: EventScope,
  consumerId: string,
): Promise<{ version: number; secret: string; created_at: string }> {
  await tx.query(
    sql.unsafe`SELECT pg_advisory_xact_lock(hashtextextended(${`receipt-secret:${consumerId}`}, 0))`,
  );
  const latest = await tx.maybeOneFirst(sql.type(z.object({ v: z.number().nullable() }))`
    SELECT max(version) AS v FROM consumer_receipt_secrets WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND consumer_id = ${consumerId}`);
  const version = (latest ?? 0) + 1;
  const secret = `${SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
  const row = await tx.one(sql.type(z.object({ created_at: z.string() }))`
    INSERT INTO consumer_receipt_secrets (org_id, project_id, consumer_id, version, secret_sealed)
    VALUES (${scope.orgId}, ${scope.projectId}, ${consumerId}, ${version}, ${seal(ring, secret, aad(consumerId, version))})
    RETURNING created_at`);
  return { version, secret, created_at: row.created_at };
}

/** The query of the newest secret's row, the one that signs: for a caller that reads it with other rows. */
export const currentReceiptSecretQuery = (
  scope: Pick<EventScope, 'orgId' | 'projectId'>,
  consumerId: string,
): FragmentSqlToken => sql.fragment`
    SELECT version, secret_sealed, created_at FROM consumer_receipt_secrets
    WHERE org_id = ${scope.orgId} AND project_id = ${scope.projectId} AND consumer_id = ${consumerId}
    ORDER BY version DESC LIMIT 1`;

/** The secret of a row read by `currentReceiptSecretQuery`, opened. */
export const openReceiptSecret = (
  ring: KeyRing,
  consumerId: string,
  row: Pick<z.infer<typeof secretRow>, 'version' | 'secret_sealed'>,
): ReceiptSecret => ({
  version: row.version,
  secret: decode(open(ring, row.secret_sealed, aad(consumerId, row.version))),
});

/** What the holder computes with: the secret text as shown, decoded the same way. */
export function receiptSecretBytes(shown: string): Buffer {
  return decode(shown);
}
