// The KMS key service: data keys from GenerateDataKey under a configured key, unwrapped with Decrypt and
// moved to a new key with ReEncrypt, always with the encryption context, so KMS itself refuses a wrapped
// key presented for another row. Any endpoint speaking the KMS protocol works (moto in tests).
import {
  DecryptCommand,
  EncryptCommand,
  GenerateDataKeyCommand,
  KMSClient,
  ReEncryptCommand,
} from '@aws-sdk/client-kms';
import {
  SealBroken,
  VaultUnavailable,
  type DataKey,
  type EncryptionContext,
  type KeyService,
} from './key-service';
import type { KmsSettings } from '../../runtime/config';

export class KmsKeyService implements KeyService {
  readonly name = 'kms';
  private readonly client: KMSClient;

  constructor(private readonly settings: KmsSettings) {
    this.client = new KMSClient({
      region: settings.region,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      ...(settings.credentials ? { credentials: settings.credentials } : {}),
      maxAttempts: 2,
    });
  }

  currentKeyRef(): string {
    return `kms:${this.settings.keyId}`;
  }

  async generateDataKey(context: EncryptionContext): Promise<DataKey> {
    const out = await this.call(() =>
      this.client.send(
        new GenerateDataKeyCommand({
          KeyId: this.settings.keyId,
          KeySpec: 'AES_256',
          EncryptionContext: context,
        }),
      ),
    );
    if (!out.Plaintext || !out.CiphertextBlob) throw new VaultUnavailable('KMS returned no data key');
    return {
      plaintext: Buffer.from(out.Plaintext),
      wrapped: Buffer.from(out.CiphertextBlob).toString('base64'),
      keyRef: this.currentKeyRef(),
    };
  }

  owns(keyRef: string): boolean {
    return keyRef.startsWith('kms:');
  }

  async wrap(plaintext: Buffer, context: EncryptionContext): Promise<{ wrapped: string; keyRef: string }> {
    const out = await this.call(() =>
      this.client.send(
        new EncryptCommand({ KeyId: this.settings.keyId, Plaintext: plaintext, EncryptionContext: context }),
      ),
    );
    if (!out.CiphertextBlob) throw new VaultUnavailable('KMS returned no ciphertext');
    return { wrapped: Buffer.from(out.CiphertextBlob).toString('base64'), keyRef: this.currentKeyRef() };
  }

  async unwrap(wrapped: string, keyRef: string, context: EncryptionContext): Promise<Buffer> {
    const out = await this.call(() =>
      this.client.send(
        new DecryptCommand({
          CiphertextBlob: Buffer.from(wrapped, 'base64'),
          KeyId: keyIdOf(keyRef),
          EncryptionContext: context,
        }),
      ),
    );
    if (!out.Plaintext) throw new VaultUnavailable('KMS returned no plaintext');
    return Buffer.from(out.Plaintext);
  }

  async rewrap(
    wrapped: string,
    keyRef: string,
    context: EncryptionContext,
  ): Promise<{ wrapped: string; keyRef: string }> {
    const out = await this.call(() =>
      this.client.send(
        new ReEncryptCommand({
          CiphertextBlob: Buffer.from(wrapped, 'base64'),
          SourceKeyId: keyIdOf(keyRef),
          SourceEncryptionContext: context,
          DestinationKeyId: this.settings.keyId,
          DestinationEncryptionContext: context,
        }),
      ),
    );
    if (!out.CiphertextBlob) throw new VaultUnavailable('KMS returned no re-encrypted key');
    return { wrapped: Buffer.from(out.CiphertextBlob).toString('base64'), keyRef: this.currentKeyRef() };
  }

  private async call<T>(send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      // The SDK's error names are stable API: a wrong context or foreign blob is InvalidCiphertextException.
      if ((error as Error).name === 'InvalidCiphertextException')
        throw new SealBroken('KMS refused the wrapped key under this encryption context');
      throw new VaultUnavailable(`KMS refused or failed: ${(error as Error).name}`, error);
    }
  }
}

function keyIdOf(keyRef: string): string {
  if (!keyRef.startsWith('kms:')) throw new VaultUnavailable(`wrapped key ${keyRef} was not made by KMS`);
  return keyRef.slice(4);
}
