// Listens for key revocations from any API process and evicts them from this process's key cache.
// When the listening connection drops, the whole cache is cleared before listening again, so a
// revocation missed while disconnected cannot keep a key alive.
import { Client } from 'pg';
import { KEY_REVOKED_CHANNEL } from '../../domain/tenancy/api-keys';
import type { Logger } from '../../runtime/logger';
import type { KeyCache } from './key-cache';

export interface RevocationListener {
  stop(): Promise<void>;
}

export async function listenForRevocations(databaseUrl: string, cache: KeyCache, log: Logger): Promise<RevocationListener> {
  let client: Client | undefined;
  let stopping = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const next = new Client({ connectionString: databaseUrl });
    next.on('notification', (message) => {
      if (message.channel === KEY_REVOKED_CHANNEL && message.payload) cache.evict(message.payload);
    });
    next.on('error', (error) => {
      log.warn('revocation listener lost its connection', { error: error.message });
      cache.clear();
      next.end().catch(() => undefined);
      if (!stopping) retry = setTimeout(() => void connect().catch(() => undefined), 1_000);
    });
    await next.connect();
    await next.query(`LISTEN ${KEY_REVOKED_CHANNEL}`);
    cache.clear();
    client = next;
  };

  await connect();
  return {
    async stop() {
      stopping = true;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}
