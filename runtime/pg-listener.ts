// One PostgreSQL connection that LISTENs on a few channels for as long as the process runs: a dropped
// connection is reported, then opened again a second later, with the caller told on each side of the gap
// (what it heard may be stale while nobody listens).
import { Client, type Notification } from 'pg';
import type { Logger } from './logger';

const RECONNECT_MS = 1_000;

export interface ListenerHooks {
  /** A notification on one of the channels; `client` is the listening connection (to answer on it). */
  heard(message: Notification, client: Client): void;
  /** Listening on every channel (first time, or again after a drop). */
  listening?(client: Client): void;
  /** The connection dropped: nothing is heard until `listening` is called again. */
  lost?(): void;
}

export interface PgListener {
  stop(): Promise<void>;
}

/**
 * Listens on `channels` over a connection named `name` (its application_name, which others may count).
 * Resolves once listening the first time; rejects when that first connection fails.
 */
export async function listenOn(
  databaseUrl: string,
  { name, channels, log }: { name: string; channels: string[]; log: Logger },
  hooks: ListenerHooks,
): Promise<PgListener> {
  let stopping = false;
  let retry: NodeJS.Timeout | undefined;
  let client: Client | undefined;

  // Tried again until it listens (a database down for longer than one wait is not given up on).
  const again = (): void => {
    if (stopping) return;
    retry = setTimeout(() => {
      connect().catch((error: Error) => {
        log.warn(`${name} listener could not listen again`, { error: error.message });
        again();
      });
    }, RECONNECT_MS);
  };
  const connect = async (): Promise<void> => {
    const next = new Client({ connectionString: databaseUrl, application_name: name });
    next.on('notification', (message) => hooks.heard(message, next));
    let dropped = false;
    next.on('error', (error) => {
      if (dropped) return;
      dropped = true;
      log.warn(`${name} listener lost its connection`, { error: error.message });
      hooks.lost?.();
      next.end().catch(() => undefined);
      again();
    });
    try {
      await next.connect();
      for (const channel of channels) await next.query(`LISTEN ${channel}`);
    } catch (error) {
      dropped = true;
      await next.end().catch(() => undefined);
      throw error;
    }
    if (stopping) {
      await next.end().catch(() => undefined);
      return;
    }
    client = next;
    hooks.listening?.(next);
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

/** A per-process cache of things that other processes may end (a session closed, a key revoked). */
export interface DroppableCache {
  drop(id: string): void;
  clear(): void;
}

export interface SharedDrops {
  /** Whether ends are heard now: only then may the cache answer for what it holds. */
  heard(): boolean;
  /** Resolves once every listening process (this one included) has dropped `id`, or after ACK_TIMEOUT_MS. */
  everywhere(id: string): Promise<void>;
  stop(): Promise<void>;
}

// A process that does not acknowledge in time (stalled, or its connection dropped and it cleared its cache)
// does not hold the ending call up for longer than this.
const ACK_TIMEOUT_MS = 2_000;

/**
 * Keeps `cache` true across API processes: an id notified on `channel` is dropped and the drop acknowledged
 * on `ackChannel`, so the process that ended it can wait for every listening process (counted by their
 * connection's application_name, `name`) before it answers. While the connection is down nothing is heard
 * and the cache is cleared, and again when listening resumes, so an end missed meanwhile cannot keep
 * anything answered.
 */
export async function listenForDrops(
  databaseUrl: string,
  {
    name,
    channel,
    ackChannel,
    what,
    log,
  }: { name: string; channel: string; ackChannel: string; what: string; log: Logger },
  cache: DroppableCache,
): Promise<SharedDrops> {
  // Acknowledgements seen per id, kept briefly: one may arrive before its ender starts waiting.
  const acks = new Map<string, number>();
  const waiters = new Map<string, () => void>();
  let current: Client | undefined;
  const listener = await listenOn(
    databaseUrl,
    { name, channels: [channel, ackChannel], log },
    {
      heard(message, client) {
        const id = message.payload;
        if (!id) return;
        if (message.channel === ackChannel) {
          acks.set(id, (acks.get(id) ?? 0) + 1);
          setTimeout(() => acks.delete(id), 10_000).unref();
          waiters.get(id)?.();
          return;
        }
        if (message.channel !== channel) return;
        cache.drop(id);
        client.query('SELECT pg_notify($1, $2)', [ackChannel, id]).catch(() => undefined);
      },
      listening(client) {
        cache.clear();
        current = client;
      },
      lost() {
        current = undefined;
        cache.clear();
      },
    },
  );
  return {
    heard: () => current !== undefined,
    async everywhere(id) {
      const client = current;
      if (!client) return;
      const found = await client.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()',
        [name],
      );
      const expected = found.rows[0]?.n ?? 0;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          log.warn(`${what} not acknowledged by every API process in time`, {
            acknowledged: acks.get(id) ?? 0,
            expected,
          });
          finish();
        }, ACK_TIMEOUT_MS);
        const finish = () => {
          clearTimeout(timer);
          waiters.delete(id);
          resolve();
        };
        const check = () => {
          if ((acks.get(id) ?? 0) >= expected) finish();
        };
        waiters.set(id, check);
        check();
      });
    },
    async stop() {
      current = undefined;
      await listener.stop();
    },
  };
}
