// Group commit for any batched call: items handed in while a batch is in flight wait and go together in
// the next one, so an idle caller is served at once and a busy one pays one round trip per batch.
export function batcher<T, R>(run: (items: T[]) => Promise<R[]>, maxBatch = 256): (item: T) => Promise<R> {
  let queue: Array<{ item: T; resolve: (result: R) => void; reject: (error: unknown) => void }> = [];
  let flushing = false;

  const flush = async (): Promise<void> => {
    flushing = true;
    while (queue.length > 0) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      try {
        const results = await run(batch.map((entry) => entry.item));
        batch.forEach((entry, index) => entry.resolve(results[index]));
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    flushing = false;
  };

  return (item) =>
    new Promise<R>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (!flushing) void flush();
    });
}
