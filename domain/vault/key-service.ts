// The key-encryption-key service behind the vault: it makes and unwraps per-secret data keys, bound to
// an encryption context, and never hands out the key that wraps them. Local AES-256-GCM and KMS implement it.

/** Binds a wrapped key (and the sealed secret) to its row: organization, project and connection. */
export type EncryptionContext = Record<string, string>;

export interface DataKey {
  plaintext: Buffer;
  /** The data key wrapped under the key-encryption key, base64. */
  wrapped: string;
  /** Which key-encryption key wrapped it (`local:<version>`, `kms:<key id>`). */
  keyRef: string;
}

export interface KeyService {
  readonly name: string;
  /** The reference new data keys are wrapped under; rows with another one are due for re-wrapping. */
  currentKeyRef(): string;
  generateDataKey(context: EncryptionContext): Promise<DataKey>;
  /** Wraps a data key another service made (moving from one key service to another). */
  wrap(plaintext: Buffer, context: EncryptionContext): Promise<{ wrapped: string; keyRef: string }>;
  /** Whether this service made the wrapped key a reference names. */
  owns(keyRef: string): boolean;
  unwrap(wrapped: string, keyRef: string, context: EncryptionContext): Promise<Buffer>;
  /** Wraps the same data key under the current key-encryption key; the sealed secret itself is untouched. */
  rewrap(
    wrapped: string,
    keyRef: string,
    context: EncryptionContext,
  ): Promise<{ wrapped: string; keyRef: string }>;
}

/** The key service could not be reached or refused to work: callers answer 503 and write nothing. */
export class VaultUnavailable extends Error {
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'VaultUnavailable';
  }
}

/** A sealed value or wrapped key that does not open under its context: moved, altered or foreign. */
export class SealBroken extends Error {
  constructor(message = 'sealed secret does not open under its encryption context') {
    super(message);
    this.name = 'SealBroken';
  }
}

/** A context canonicalized for use as AES-GCM associated data: sorted keys, so order never matters. */
export function contextBytes(context: EncryptionContext): Buffer {
  return Buffer.from(
    JSON.stringify(
      Object.keys(context)
        .sort()
        .map((key) => [key, context[key]]),
    ),
  );
}
