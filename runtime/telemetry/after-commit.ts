// Effects that must wait for a transaction to commit (counting what it wrote): a transaction opened on the
// pool collects them and runs them once it has committed; a rolled-back or retried attempt drops them.
// Outside a tracked transaction (autocommit, or a transaction opened on a checked-out connection) an
// effect runs at once.
import type { DatabasePool, DatabaseTransactionConnection } from 'slonik';

const waiting = new WeakMap<object, Array<() => void>>();

export function afterCommit(connection: object, effect: () => void): void {
  const effects = waiting.get(connection);
  if (effects) effects.push(effect);
  else effect();
}

/** The pool with `transaction` running the effects its transaction registered, after COMMIT. */
export function trackCommits(pool: DatabasePool): DatabasePool {
  const transaction: DatabasePool['transaction'] = async (handler, retryLimit) => {
    let effects: Array<() => void> = [];
    const result = await pool.transaction(async (tx: DatabaseTransactionConnection) => {
      // A retried transaction starts over: only the attempt that commits counts.
      effects = [];
      waiting.set(tx, effects);
      return handler(tx);
    }, retryLimit);
    for (const effect of effects) effect();
    return result;
  };
  return { ...pool, transaction };
}

/**
 * The pool with `transaction` joining the caller's open transaction instead of opening one (no savepoint):
 * steps written against a pool, run as part of one transaction. Its other queries still run on the pool.
 */
export function joiningTransaction(pool: DatabasePool, tx: DatabaseTransactionConnection): DatabasePool {
  const transaction: DatabasePool['transaction'] = async (handler) => handler(tx);
  return { ...pool, transaction };
}
