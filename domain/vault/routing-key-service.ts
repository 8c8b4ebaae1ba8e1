// Moving the vault from one key service to another without downtime: new data keys come from the
// primary; a wrapped key made by a previous service (its reference says which) still opens through
// that service, and re-wrapping moves it to the primary.
import type { DataKey, EncryptionContext, KeyService } from './key-service';
import { VaultUnavailable } from './key-service';

export class RoutingKeyService implements KeyService {
  readonly name: string;

  constructor(
    private readonly primary: KeyService,
    private readonly previous: KeyService[],
  ) {
    this.name = primary.name;
  }

  currentKeyRef(): string {
    return this.primary.currentKeyRef();
  }

  owns(keyRef: string): boolean {
    return this.primary.owns(keyRef) || this.previous.some((s) => s.owns(keyRef));
  }

  generateDataKey(context: EncryptionContext): Promise<DataKey> {
    return this.primary.generateDataKey(context);
  }

  wrap(plaintext: Buffer, context: EncryptionContext): Promise<{ wrapped: string; keyRef: string }> {
    return this.primary.wrap(plaintext, context);
  }

  unwrap(wrapped: string, keyRef: string, context: EncryptionContext): Promise<Buffer> {
    return this.serviceFor(keyRef).unwrap(wrapped, keyRef, context);
  }

  async rewrap(
    wrapped: string,
    keyRef: string,
    context: EncryptionContext,
  ): Promise<{ wrapped: string; keyRef: string }> {
    const source = this.serviceFor(keyRef);
    if (source === this.primary) return this.primary.rewrap(wrapped, keyRef, context);
    const plaintext = await source.unwrap(wrapped, keyRef, context);
    try {
      return await this.primary.wrap(plaintext, context);
    } finally {
      plaintext.fill(0);
    }
  }

  private serviceFor(keyRef: string): KeyService {
    const service = [this.primary, ...this.previous].find((s) => s.owns(keyRef));
    if (!service) throw new VaultUnavailable(`no configured key service made ${keyRef}`);
    return service;
  }
}
