// Group commit for POST /v1/ledger-entries within one API process. Posts that arrive while earlier batches
// are in flight queue up and go out together as one ledger_post statement: one round trip and one
// commit for many posts, and a hot wallet's balance row locked once per batch. Two batches in flight never
// share a wallet, so they never wait for each other; a batch does not wait for a row locked elsewhere, and
// a post that could not be done in its batch runs again on its own with the full lock wait, outside the
// batch slots, while its wallet stays reserved so that wallet's later posts keep their order.

export interface BatchItem<I, R> {
  /** Posts with the same key (wallet) keep their order and are never in two batches at once. */
  key: string;
  /** The lock order within a batch: wallet, then currency. */
  sortKey: string;
  input: I;
  resolve(result: R): void;
  reject(error: unknown): void;
}

export interface BatcherOptions<I, R> {
  /** Batches in flight at once, each on its own connection. */
  maxInFlight: number;
  maxBatch: number;
  /** Runs one batch: settles the items it could and returns those to run alone; throws to reject them all. */
  run(items: Array<BatchItem<I, R>>): Promise<Array<BatchItem<I, R>>>;
  runAlone(input: I): Promise<R>;
}

export interface Batcher<I, R> {
  submit(key: string, sortKey: string, input: I): Promise<R>;
}

export function createBatcher<I, R>(options: BatcherOptions<I, R>): Batcher<I, R> {
  const pending: Array<BatchItem<I, R>> = [];
  const busy = new Set<string>();
  let inFlight = 0;
  let scheduled = false;

  /** The oldest pending posts whose wallets no batch in flight holds, up to maxBatch. */
  const takeBatch = (): Array<BatchItem<I, R>> => {
    const batch: Array<BatchItem<I, R>> = [];
    const rest: Array<BatchItem<I, R>> = [];
    for (const item of pending) {
      if (batch.length < options.maxBatch && !busy.has(item.key)) batch.push(item);
      else rest.push(item);
    }
    pending.length = 0;
    pending.push(...rest);
    return batch;
  };

  const runInOrder = async (items: Array<BatchItem<I, R>>): Promise<void> => {
    for (const item of items) await options.runAlone(item.input).then(item.resolve, item.reject);
  };

  const launch = (): void => {
    scheduled = false;
    while (inFlight < options.maxInFlight && pending.length > 0) {
      const batch = takeBatch();
      if (batch.length === 0) return;
      const keys = new Set(batch.map((item) => item.key));
      for (const key of keys) busy.add(key);
      inFlight += 1;
      // A stable sort keeps each wallet's posts in arrival order.
      batch.sort((a, b) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0));
      const release = (done: Iterable<string>) => {
        for (const key of done) busy.delete(key);
        launch();
      };
      void options.run(batch).then(
        (leftovers) => {
          inFlight -= 1;
          const alone = new Map<string, Array<BatchItem<I, R>>>();
          for (const item of leftovers) alone.set(item.key, [...(alone.get(item.key) ?? []), item]);
          release([...keys].filter((key) => !alone.has(key)));
          for (const [key, items] of alone) void runInOrder(items).finally(() => release([key]));
        },
        (error: unknown) => {
          inFlight -= 1;
          for (const item of batch) item.reject(error);
          release(keys);
        },
      );
    }
  };

  return {
    submit(key, sortKey, input) {
      return new Promise<R>((resolve, reject) => {
        pending.push({ key, sortKey, input, resolve, reject });
        // Posts read from the network in the same turn of the event loop go out together.
        if (!scheduled) {
          scheduled = true;
          setImmediate(launch);
        }
      });
    },
  };
}
