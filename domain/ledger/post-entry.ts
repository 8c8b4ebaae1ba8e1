// POST /v1/ledger-entries without a transaction held open from the API: the database function ledger_post
// (migration 0460) locks the wallet and its balance slot, applies ledger_effect (the SQL twin of effectOf),
// writes the entries, the balance, the hold and the outbox events, all in one autocommitted statement.
// Concurrent posts share a statement through the batcher (ledger_post_batch, migration 0461). A round trip
// costs more than the SQL it carries, and a hot wallet's balance row is locked for one statement per batch.
import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool } from '../../runtime/database';
import { ApiError, notFound } from '../errors';
import type { EventScope } from '../events/record';
import { prefixedId, sortableId } from '../ids';
import { effectRefusalError, ledgerConflict, translateLedgerError } from './conflicts';
import { entryRow, type EntryRow } from './entries';
import { LOCK_TIMEOUT, recordRefusal, type PostInput, type PostResult } from './post';
import { createBatcher, type Batcher, type BatchItem } from './post-batcher';

/** Batches in flight per process, posts per batch (under the 64 subtransactions a backend tracks cheaply). */
const MAX_IN_FLIGHT = 2;
const MAX_BATCH = 32;
/** How long a batch waits for a lock held outside it before it leaves that post to run on its own. */
const BATCH_LOCK_WAIT = '20ms';

const outcomeFields = { reason: z.string().nullable(), wallet_status: z.string().nullable(), slot_available: z.bigint().nullable(), hold_currency: z.string().nullable() };
const postedRow = z.object({
  refusal: z.null(), ...outcomeFields, ...entryRow.shape,
  balance_minor: z.bigint(), available_minor: z.bigint(), balance_updated_at: z.string(),
});
const refusedRow = z.object({
  refusal: z.enum(['not_found', 'wallet_not_active', 'ledger_conflict', 'balance_constraint_violation']), ...outcomeFields, hold_id: z.string().nullable(),
});
const outcomeRow = z.union([postedRow, refusedRow]);
type OutcomeRow = z.infer<typeof outcomeRow>;
const batchRow = z.union([
  postedRow.extend({ n: z.number(), failed: z.literal(false) }),
  refusedRow.extend({ n: z.number(), failed: z.literal(false) }),
  z.object({ n: z.number(), failed: z.literal(true) }),
]);

/** One post with the ids the database cannot make: the new hold's and its events' (a debit may post two). */
interface Post {
  scope: EventScope;
  input: PostInput;
  holdId: string | null;
  eventIds: [string, string | null];
}

function refusalError(row: z.infer<typeof refusedRow>): ApiError {
  switch (row.refusal) {
    case 'not_found':
      return notFound('Wallet');
    case 'wallet_not_active':
      return new ApiError(409, 'wallet_not_active', `The wallet is ${row.wallet_status}; only active wallets accept ledger entries`, { status: row.wallet_status });
    default:
      if (row.reason === 'hold_currency_mismatch') return ledgerConflict('The hold for this attempt is in another currency', { reason: 'hold_currency_mismatch', hold_currency: row.hold_currency });
      return effectRefusalError(row.refusal, row.reason ?? 'unknown', row.slot_available ?? 0n, row.hold_id);
  }
}

function entryOf(row: z.infer<typeof postedRow>): EntryRow {
  return {
    id: row.id, wallet_id: row.wallet_id, org_id: row.org_id, currency: row.currency, kind: row.kind, amount_minor: row.amount_minor, hold_id: row.hold_id,
    mandate_id: row.mandate_id, attempt_id: row.attempt_id, external_ref: row.external_ref, reconciled_at: row.reconciled_at, posted_at: row.posted_at, metadata: row.metadata,
  };
}

/** The result of one post from its rows: the entry (and a remainder release) with the balance, or its refusal. */
function resultOf(post: Post, rows: readonly OutcomeRow[]): PostResult {
  const [first, second] = rows;
  if (first.refusal !== null) throw refusalError(first);
  const balance = { wallet_id: post.input.walletId, currency: post.input.currency, balance_minor: first.balance_minor, available_minor: first.available_minor, updated_at: first.balance_updated_at };
  return { entry: entryOf(first), release: second && second.refusal === null ? entryOf(second) : null, balance };
}

/** One post in its own statement, waiting for locks as long as any ledger writer does. */
async function postAlone(db: DatabasePool, post: Post): Promise<PostResult> {
  const { scope, input } = post;
  let rows: readonly OutcomeRow[];
  try {
    rows = await db.any(sql.type(outcomeRow)`
      SELECT * FROM ledger_post(${scope.orgId}, ${scope.projectId}, ${scope.environment}, ${input.walletId}, ${input.currency}, ${input.kind},
        ${input.amount.toString()}::bigint, ${input.mandateId ?? null}, ${input.attemptId ?? null}, ${input.externalRef ?? null},
        ${sql.jsonb((input.metadata ?? {}) as never)}, ${post.holdId}, ${sql.array(post.eventIds, 'text')}, ${LOCK_TIMEOUT})`);
  } catch (error) {
    // A refusal the database raised (a tripped CHECK) rolled everything back, its event included.
    const translated = translateLedgerError(error);
    await recordRefusal(db, scope, input, translated);
    throw translated;
  }
  return resultOf(post, rows);
}

/** Posts a batch in one statement and returns the posts that raised in it, to run again alone. */
async function postBatch(db: DatabasePool, items: Array<BatchItem<Post, PostResult>>): Promise<Array<BatchItem<Post, PostResult>>> {
  const posts = items.map((item) => item.input);
  const column = <T>(pick: (post: Post) => T) => posts.map(pick);
  const rows = await db.any(sql.type(batchRow)`
    SELECT * FROM ledger_post_batch(
      ${sql.array(column((p) => p.scope.orgId), 'text')}, ${sql.array(column((p) => p.scope.projectId), 'text')},
      ${sql.array(column((p) => p.scope.environment), 'text')}, ${sql.array(column((p) => p.input.walletId), 'text')},
      ${sql.array(column((p) => p.input.currency), 'text')}, ${sql.array(column((p) => p.input.kind), 'text')},
      ${sql.array(column((p) => p.input.amount.toString()), 'int8')}, ${sql.array(column((p) => p.input.mandateId ?? null) as string[], 'text')},
      ${sql.array(column((p) => p.input.attemptId ?? null) as string[], 'text')}, ${sql.array(column((p) => p.input.externalRef ?? null) as string[], 'text')},
      ${sql.array(column((p) => JSON.stringify(p.input.metadata ?? {})), 'jsonb')}, ${sql.array(column((p) => p.holdId) as string[], 'text')},
      ${sql.array(posts.flatMap((p) => p.eventIds) as string[], 'text')}, ${BATCH_LOCK_WAIT}, ${LOCK_TIMEOUT})`);
  const byPost = new Map<number, OutcomeRow[]>();
  const failed = new Set<number>();
  for (const row of rows) {
    if (row.failed) failed.add(row.n - 1);
    else byPost.set(row.n - 1, [...(byPost.get(row.n - 1) ?? []), row]);
  }
  return items.filter((item, i) => {
    const outcome = byPost.get(i);
    if (failed.has(i) || !outcome) return true;
    try {
      item.resolve(resultOf(item.input, outcome));
    } catch (error) {
      item.reject(error);
    }
    return false;
  });
}

const batchers = new WeakMap<DatabasePool, Batcher<Post, PostResult>>();

function batcherFor(db: DatabasePool): Batcher<Post, PostResult> {
  let batcher = batchers.get(db);
  if (!batcher) {
    batcher = createBatcher<Post, PostResult>({ maxInFlight: MAX_IN_FLIGHT, maxBatch: MAX_BATCH, run: (items) => postBatch(db, items), runAlone: (post) => postAlone(db, post) });
    batchers.set(db, batcher);
  }
  return batcher;
}

/**
 * Posts one entry, committed by the time this resolves. Refusals write nothing but their
 * `ledger.entry_refused` event; a refusal the database raised maps to the same codes as postLocked's.
 */
export async function postEntry(db: DatabasePool, scope: EventScope, input: PostInput): Promise<PostResult> {
  if (input.amount <= 0n) throw new ApiError(400, 'invalid_body', 'amount_minor must be greater than zero', { issues: [{ path: '/amount_minor', message: 'must be > 0', keyword: 'minimum' }] });
  const post: Post = {
    scope, input,
    holdId: input.kind === 'hold' ? prefixedId('hld') : null,
    eventIds: [sortableId('evt'), input.kind === 'debit' ? sortableId('evt') : null],
  };
  return batcherFor(db).submit(input.walletId, `${input.walletId}\u0000${input.currency}`, post);
}
