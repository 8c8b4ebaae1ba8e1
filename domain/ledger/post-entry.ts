// POST /v1/ledger-entries without a transaction held open from the API: the database function ledger_post
// (migration 0461) locks the wallets and balance slots, applies ledger_effect (the SQL twin of effectOf),
// writes the entries, balances, holds and outbox events, all in one autocommitted statement, for every post
// the batcher gathered (group commit). A round trip and a commit cost far more than the SQL they carry, and
// a hot wallet's balance row is locked for one statement per batch.
import { sql } from 'slonik';
import { z } from 'zod';
import { sqlState, type DatabasePool } from '../../runtime/database';
import { ApiError, notFound } from '../errors';
import { recordEvent, type EventScope } from '../events/record';
import { prefixedId, sortableId } from '../ids';
import { effectRefusalError, externalRefConflict, ledgerConflict, translateLedgerError } from './conflicts';
import { entryRow, type EntryRow } from './entries';
import { LOCK_TIMEOUT, type PostInput, type PostResult } from './post';
import { createBatcher, type Batcher, type BatchItem } from './post-batcher';
import { countEvent } from '../../runtime/telemetry/metrics';

/** Batches in flight per process (each on its own connection), and posts per batch. */
const MAX_IN_FLIGHT = 2;
const MAX_BATCH = 64;

const outcomeFields = {
  n: z.number(),
  failed: z.boolean(),
  reason: z.string().nullable(),
  wallet_status: z.string().nullable(),
  slot_available: z.bigint().nullable(),
  hold_currency: z.string().nullable(),
};
const postedRow = z.object({
  refusal: z.null(),
  ...outcomeFields,
  failed: z.literal(false),
  ...entryRow.omit({ agent_id: true }).shape,
  balance_minor: z.bigint(),
  available_minor: z.bigint(),
  balance_updated_at: z.string(),
});
/** A refusal, or (failed, refusal null) a post the batch left undone. */
const refusedRow = z.object({
  refusal: z
    .enum(['not_found', 'wallet_not_active', 'ledger_conflict', 'balance_constraint_violation'])
    .nullable(),
  ...outcomeFields,
  hold_id: z.string().nullable(),
});
type PostedRow = z.infer<typeof postedRow>;
type RefusedRow = z.infer<typeof refusedRow>;
const isPosted = (row: PostedRow | RefusedRow): row is PostedRow => row.refusal === null && !row.failed;
const outcomeRow = z.union([postedRow, refusedRow]);
type OutcomeRow = z.infer<typeof outcomeRow>;

/** One post with the ids the database cannot make: the new hold's and its events' (a debit may post two). */
interface Post {
  scope: EventScope;
  input: PostInput;
  holdId: string | null;
  eventIds: [string, string | null];
}

function refusalError(row: RefusedRow): Error {
  switch (row.refusal) {
    case null:
      return new Error('ledger_post left the post undone');
    case 'not_found':
      return notFound('Wallet');
    case 'wallet_not_active':
      return new ApiError(
        409,
        'wallet_not_active',
        `The wallet is ${row.wallet_status}; only active wallets accept ledger entries`,
        { status: row.wallet_status },
      );
    default:
      if (row.reason === 'external_ref_exists') return externalRefConflict();
      if (row.reason === 'hold_currency_mismatch')
        return ledgerConflict('The hold for this attempt is in another currency', {
          reason: 'hold_currency_mismatch',
          hold_currency: row.hold_currency,
        });
      return effectRefusalError(row.refusal, row.reason ?? 'unknown', row.slot_available ?? 0n, row.hold_id);
  }
}

function entryOf(row: PostedRow): EntryRow {
  return {
    id: row.id,
    wallet_id: row.wallet_id,
    org_id: row.org_id,
    currency: row.currency,
    kind: row.kind,
    amount_minor: row.amount_minor,
    hold_id: row.hold_id,
    mandate_id: row.mandate_id,
    attempt_id: row.attempt_id,
    external_ref: row.external_ref,
    reconciled_at: row.reconciled_at,
    posted_at: row.posted_at,
    metadata: row.metadata,
    // This path posts adjustments only (holds and debits are the engine's), which no agent spends.
    agent_id: null,
  };
}

/** The result of one post from its rows: the entry (and a remainder release) with the balance, or its refusal. */
function resultOf(post: Post, rows: readonly OutcomeRow[]): PostResult {
  const [first, second] = rows;
  if (!isPosted(first)) throw refusalError(first);
  const balance = {
    wallet_id: post.input.walletId,
    currency: post.input.currency,
    balance_minor: first.balance_minor,
    available_minor: first.available_minor,
    updated_at: first.balance_updated_at,
  };
  return { entry: entryOf(first), release: second && isPosted(second) ? entryOf(second) : null, balance };
}

/** The posts as ledger_post's columns; a post's event ids take two places (a debit may post two entries). */
function postSql(posts: Post[], wait: boolean) {
  const column = (pick: (post: Post) => string | null) => sql.array(posts.map(pick) as string[], 'text');
  return sql.type(outcomeRow)`
    SELECT * FROM ledger_post(
      ${column((p) => p.scope.orgId)}, ${column((p) => p.scope.projectId)}, ${column((p) => p.scope.environment)},
      ${column((p) => p.input.walletId)}, ${column((p) => p.input.currency)}, ${column((p) => p.input.kind)},
      ${sql.array(
        posts.map((p) => p.input.amount.toString()),
        'int8',
      )}, ${column((p) => p.input.mandateId ?? null)},
      ${column((p) => p.input.attemptId ?? null)}, ${column((p) => p.input.externalRef ?? null)},
      ${sql.array(
        posts.map((p) => JSON.stringify(p.input.metadata ?? {})),
        'jsonb',
      )}, ${column((p) => p.holdId)},
      ${sql.array(posts.flatMap((p) => p.eventIds) as string[], 'text')}, ${wait}, ${LOCK_TIMEOUT})`;
}

/** A refusal the database raised rolled its event back with everything else: it is recorded after. */
export async function recordRefusal(
  db: DatabasePool,
  scope: EventScope,
  input: PostInput,
  error: unknown,
): Promise<void> {
  if (
    !(error instanceof ApiError) ||
    !['balance_constraint_violation', 'wallet_not_active'].includes(error.code)
  )
    return;
  await recordEvent(db, scope, 'ledger.entry_refused', {
    wallet_id: input.walletId,
    currency: input.currency,
    kind: input.kind,
    amount_minor: input.amount,
    attempt_id: input.attemptId ?? null,
    code: error.code,
    reason: (error.details?.reason as string | undefined) ?? null,
  }).catch(() => undefined);
}

/** One post in its own statement, waiting for locks as long as any ledger writer does. */
async function postAlone(db: DatabasePool, post: Post): Promise<PostResult> {
  let rows: readonly OutcomeRow[];
  try {
    rows = await db.any(postSql([post], true));
  } catch (error) {
    // A refusal the database raised (a tripped CHECK) rolled everything back, its event included.
    const translated = translateLedgerError(error);
    await recordRefusal(db, post.scope, post.input, translated);
    throw translated;
  }
  return resultOf(post, rows);
}

/**
 * Posts a batch in one statement and returns the posts to run again alone: those it could not lock, or
 * all of them when the statement failed in the database (which then rolled it back whole).
 */
async function postBatch(
  db: DatabasePool,
  items: Array<BatchItem<Post, PostResult>>,
): Promise<Array<BatchItem<Post, PostResult>>> {
  let rows: readonly OutcomeRow[];
  try {
    rows = await db.any(
      postSql(
        items.map((item) => item.input),
        false,
      ),
    );
  } catch (error) {
    if (sqlState(error) === undefined) throw error; // no answer from the database: the outcome is unknown
    return items;
  }
  const byPost = new Map<number, OutcomeRow[]>();
  for (const row of rows) byPost.set(row.n - 1, [...(byPost.get(row.n - 1) ?? []), row]);
  return items.filter((item, i) => {
    const outcome = byPost.get(i);
    if (!outcome || outcome[0].failed) return true;
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
    batcher = createBatcher<Post, PostResult>({
      maxInFlight: MAX_IN_FLIGHT,
      maxBatch: MAX_BATCH,
      run: (items) => postBatch(db, items),
      runAlone: (post) => postAlone(db, post),
    });
    batchers.set(db, batcher);
  }
  return batcher;
}

/**
 * Posts one entry, committed by the time this resolves. Refusals write nothing but their
 * `ledger.entry_refused` event; a refusal the database raised maps to the same codes as postLocked's.
 */
export async function postEntry(db: DatabasePool, scope: EventScope, input: PostInput): Promise<PostResult> {
  if (input.amount <= 0n)
    throw new ApiError(400, 'invalid_body', 'amount_minor must be greater than zero', {
      issues: [{ path: '/amount_minor', message: 'must be > 0', keyword: 'minimum' }],
    });
  const post: Post = {
    scope,
    input,
    holdId: input.kind === 'hold' ? prefixedId('hld') : null,
    eventIds: [sortableId('evt'), input.kind === 'debit' ? sortableId('evt') : null],
  };
  const result = await batcherFor(db).submit(
    input.walletId,
    `${input.walletId}\u0000${input.currency}`,
    post,
  );
  // ledger_post writes its events in SQL, so they are counted here, committed.
  for (const entry of result.release ? [result.entry, result.release] : [result.entry])
    countEvent('ledger.entry_posted', { kind: entry.kind });
  return result;
}
