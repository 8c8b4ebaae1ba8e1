// A short-lived cache of resolved API keys, so the hot path does not query Postgres on every call.
// Revocation stays immediate: the revoking process evicts locally and NOTIFYs every other API process,
// and the TTL bounds staleness should a notification be lost while a process was disconnected.
import type { KeyCredential } from '../../domain/tenancy/api-keys';

interface Entry {
  credential: KeyCredential | null; // null remembers "no such live key" briefly, so floods of bad keys stay cheap
  expiresAt: number;
}

export class KeyCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs = 30_000,
    private readonly maxEntries = 10_000,
  ) {}

  get(keyHash: string): KeyCredential | null | undefined {
    const entry = this.entries.get(keyHash);
    if (!entry) return undefined;
    if (entry.expiresAt < Date.now()) {
      this.entries.delete(keyHash);
      return undefined;
    }
    return entry.credential;
  }

  set(keyHash: string, credential: KeyCredential | null): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    const ttl = credential ? this.ttlMs : Math.min(this.ttlMs, 2_000);
    this.entries.set(keyHash, { credential, expiresAt: Date.now() + ttl });
  }

  /** Set by the revocation listener: resolves once every API process has dropped the key. */
  awaitEviction: ((keyHash: string) => Promise<void>) | undefined;

  evict(keyHash: string): void {
    this.entries.delete(keyHash);
  }

  /** Drops a revoked key here and waits until every other API process has dropped it too. */
  async revoked(keyHash: string): Promise<void> {
    this.evict(keyHash);
    await this.awaitEviction?.(keyHash);
  }

  /** Drops every key of a project, for deletes that cascade to keys. */
  evictProject(projectId: string): void {
    for (const [hash, entry] of this.entries)
      if (entry.credential?.project_id === projectId) this.entries.delete(hash);
  }

  clear(): void {
    this.entries.clear();
  }
}
