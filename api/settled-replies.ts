// The replies of settled attempts (consumer payments, wallet execute), serialized once and kept in this
// process, so presenting a settled attempt again costs no PostgreSQL round trip. Only answers that can
// never change are held: a settled attempt's row is never updated again and goes only with its project.
// An entry answers only the organization, project and request fingerprint it was stored for; any other
// presentation misses, and PostgreSQL decides exactly as it would without the cache.
import { hash } from 'node:crypto';
import type { DatabasePool } from '../runtime/database';
import type { Reply } from './route';

export interface SettledReply {
  projectId: string;
  fingerprint: string;
  status: number;
  /** The body a replay sends, serialized once (for a consumer payment, `idempotent_replay: true` included). */
  json: Buffer;
}

/** A bounded least-recently-used map from (organization, attempt id) to the attempt's settled reply. */
export class SettledReplies {
  private readonly entries = new Map<string, SettledReply>();
  private bytes = 0;

  constructor(
    private readonly maxEntries = 10_000,
    private readonly maxBytes = 32 * 2 ** 20,
  ) {}

  /** The reply for exactly this presentation, or undefined. */
  get(orgId: string, attemptId: string, projectId: string, fingerprint: string): SettledReply | undefined {
    const key = keyOf(orgId, attemptId);
    const entry = this.entries.get(key);
    if (!entry || entry.projectId !== projectId || entry.fingerprint !== fingerprint) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  remember(orgId: string, attemptId: string, reply: SettledReply): void {
    if (reply.json.length > this.maxBytes) return;
    const key = keyOf(orgId, attemptId);
    this.drop(key);
    this.entries.set(key, reply);
    this.bytes += reply.json.length;
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.drop(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  private drop(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.json.length;
  }
}

// NUL cannot occur in an id (the router refuses it), so it separates the two parts unambiguously.
const keyOf = (orgId: string, attemptId: string): string => `${orgId}\u0000${attemptId}`;

/** Settled replies are kept per attempt id space (domain/attempts/store.ts). */
export type ReplySpace = 'consumer' | 'wallet';

/** A presentation's final answer: the reply as sent, and the attempt it names (for the request's log fields). */
export interface FinalReply {
  attemptId: string;
  reply: Reply & { body: Buffer };
}

/**
 * Final answers by presentation: the caller's organization and project, the route, and a digest of the
 * body's bytes. A route's answer to the same caller sending the same bytes is final once the attempt they
 * name has settled and nothing else it checks can change (the flow says so, `Reply.final`), so the router
 * sends it again without parsing, validating and fingerprinting the body anew. Bounded, least recently used.
 */
export class FinalReplies {
  private readonly entries = new Map<string, FinalReply>();
  private bytes = 0;

  constructor(
    private readonly maxEntries = 10_000,
    private readonly maxBytes = 32 * 2 ** 20,
  ) {}

  get(key: string): FinalReply | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  remember(key: string, entry: FinalReply): void {
    if (entry.reply.body.length > this.maxBytes || this.entries.has(key)) return;
    this.entries.set(key, entry);
    this.bytes += entry.reply.body.length;
    for (const [oldest, dropped] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= dropped.reply.body.length;
    }
  }
}

/** The key of one presentation: who sent it, to which route, and the digest of exactly the bytes sent. */
export function presentationKey(orgId: string, projectId: string, route: string, raw: Buffer): string {
  return `${orgId}\u0000${projectId}\u0000${route}\u0000${hash('sha256', raw, 'base64')}`;
}

interface Caches {
  replies: Record<ReplySpace, SettledReplies>;
  final: FinalReplies;
}

// One cache per database: a cached row is a copy of that database's row, and a test gateway's database
// is its own.
const perDatabase = new WeakMap<DatabasePool, Caches>();

function cachesOf(db: DatabasePool): Caches {
  let caches = perDatabase.get(db);
  if (!caches) {
    caches = {
      replies: { consumer: new SettledReplies(), wallet: new SettledReplies() },
      final: new FinalReplies(),
    };
    perDatabase.set(db, caches);
  }
  return caches;
}

export function settledReplies(db: DatabasePool, space: ReplySpace): SettledReplies {
  return cachesOf(db).replies[space];
}

export function finalReplies(db: DatabasePool): FinalReplies {
  return cachesOf(db).final;
}

/** A body as Koa would send it (JSON.stringify, UTF-8), so a cached reply is byte-identical to an uncached one. */
export function serializeReply(body: unknown): Buffer {
  return Buffer.from(JSON.stringify(body), 'utf8');
}
