// The default key service: key-encryption keys from configuration (GATEWAY_VAULT_KEYS, versioned), each
// data key wrapped with AES-256-GCM under the highest version with the encryption context as AAD.
import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import type { KeyRing } from '../crypto/secret-box';
import {
  contextBytes,
  SealBroken,
  VaultUnavailable,
  type DataKey,
  type EncryptionContext,
  type KeyService,
} from './key-service';

export class LocalKeyService implements KeyService {
  readonly name = 'local';

  // Each key-encryption key imported once: importing raw key bytes on every unwrap was most of its cost.
  private readonly imported = new Map<number, KeyObject>();

  constructor(private readonly ring: KeyRing) {}

  private kek(version: number): KeyObject | undefined {
    let key = this.imported.get(version);
    const raw = this.ring.keys.get(version);
    if (!key && raw) {
      key = createSecretKey(raw);
      this.imported.set(version, key);
    }
    return key;
  }

  currentKeyRef(): string {
    return `local:${this.ring.current}`;
  }

  async generateDataKey(context: EncryptionContext): Promise<DataKey> {
    const plaintext = randomBytes(32);
    return { plaintext, wrapped: this.wrapKey(plaintext, context), keyRef: this.currentKeyRef() };
  }

  owns(keyRef: string): boolean {
    return keyRef.startsWith('local:');
  }

  async wrap(plaintext: Buffer, context: EncryptionContext): Promise<{ wrapped: string; keyRef: string }> {
    return { wrapped: this.wrapKey(plaintext, context), keyRef: this.currentKeyRef() };
  }

  async unwrap(wrapped: string, keyRef: string, context: EncryptionContext): Promise<Buffer> {
    const version = /^local:(\d+)$/.exec(keyRef)?.[1];
    const kek = version === undefined ? undefined : this.kek(Number(version));
    if (!kek) throw new VaultUnavailable(`key-encryption key ${keyRef} is not configured`);
    const blob = Buffer.from(wrapped, 'base64');
    try {
      const decipher = createDecipheriv('aes-256-gcm', kek, blob.subarray(0, 12));
      decipher.setAAD(contextBytes(context));
      decipher.setAuthTag(blob.subarray(12, 28));
      return Buffer.concat([decipher.update(blob.subarray(28)), decipher.final()]);
    } catch {
      throw new SealBroken('wrapped data key does not open under its encryption context');
    }
  }

  async rewrap(
    wrapped: string,
    keyRef: string,
    context: EncryptionContext,
  ): Promise<{ wrapped: string; keyRef: string }> {
    const plaintext = await this.unwrap(wrapped, keyRef, context);
    return { wrapped: this.wrapKey(plaintext, context), keyRef: this.currentKeyRef() };
  }

  private wrapKey(plaintext: Buffer, context: EncryptionContext): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.kek(this.ring.current)!, iv);
    cipher.setAAD(contextBytes(context));
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }
}
