// Listens for key revocations from any API process and evicts them from this process's key cache.
// When the listening connection drops, the whole cache is cleared before listening again, so a
// revocation missed while disconnected cannot keep a key alive. Each eviction is acknowledged on a
// second channel, and the revoking process waits for every listening process's acknowledgement
// (listeners are counted by their connection's application_name) before it answers, so a revoked key
// is refused by every API process once the revoke call returns, not merely soon after.
import { KEY_REVOKED_CHANNEL } from '../../domain/tenancy/api-keys';
import type { Logger } from '../../runtime/logger';
import { listenForDrops } from '../../runtime/pg-listener';
import type { KeyCache } from './key-cache';

export interface RevocationListener {
  stop(): Promise<void>;
}

export async function listenForRevocations(
  databaseUrl: string,
  cache: KeyCache,
  log: Logger,
): Promise<RevocationListener> {
  const drops = await listenForDrops(
    databaseUrl,
    {
      name: 'gateway-key-revocations',
      channel: KEY_REVOKED_CHANNEL,
      ackChannel: `${KEY_REVOKED_CHANNEL}_evicted`,
      what: 'key revocation',
      log,
    },
    { drop: (keyHash) => cache.evict(keyHash), clear: () => cache.clear() },
  );
  cache.awaitEviction = (keyHash) => drops.everywhere(keyHash);
  return {
    async stop() {
      cache.awaitEviction = undefined;
      await drops.stop();
    },
  };
}
