// Envelope encryption of one secret: a fresh data key per secret (from the key service), the secret's
// fields sealed with AES-256-GCM under it, and the encryption context as associated data on both layers.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { contextBytes, SealBroken, type EncryptionContext, type KeyService } from './key-service';

export interface SealedSecret {
  /** iv (12) ‖ tag (16) ‖ ciphertext, base64. */
  ciphertext: string;
  wrappedKey: string;
  keyRef: string;
}

export type SecretFields = Record<string, string>;

export async function sealSecret(
  keys: KeyService,
  context: EncryptionContext,
  fields: SecretFields,
): Promise<SealedSecret> {
  const dataKey = await keys.generateDataKey(context);
  try {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', dataKey.plaintext, iv);
    cipher.setAAD(contextBytes(context));
    const body = Buffer.concat([cipher.update(JSON.stringify(fields), 'utf8'), cipher.final()]);
    return {
      ciphertext: Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64'),
      wrappedKey: dataKey.wrapped,
      keyRef: dataKey.keyRef,
    };
  } finally {
    dataKey.plaintext.fill(0);
  }
}

export async function openSecret(
  keys: KeyService,
  context: EncryptionContext,
  sealed: SealedSecret,
): Promise<SecretFields> {
  const dataKey = await keys.unwrap(sealed.wrappedKey, sealed.keyRef, context);
  try {
    const blob = Buffer.from(sealed.ciphertext, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', dataKey, blob.subarray(0, 12));
    decipher.setAAD(contextBytes(context));
    decipher.setAuthTag(blob.subarray(12, 28));
    return JSON.parse(
      Buffer.concat([decipher.update(blob.subarray(28)), decipher.final()]).toString('utf8'),
    ) as SecretFields;
  } catch {
    throw new SealBroken();
  } finally {
    dataKey.fill(0);
  }
}

/** The context every connection secret is bound to: moving the sealed columns to another row breaks them. */
export function connectionContext(orgId: string, projectId: string, connectionId: string): EncryptionContext {
  return {
    org_id: orgId,
    project_id: projectId,
    connection_id: connectionId,
    purpose: 'provider_connection',
  };
}
