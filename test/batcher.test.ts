// Group commit: an idle call goes out at once; calls made while a batch is in flight go together in the next.
import { batcher } from '../runtime/batcher';

it('runs the first call alone, then everything that queued meanwhile as one batch, each caller getting its own result', async () => {
  const batches: number[][] = [];
  let release: () => void = () => undefined;
  const call = batcher(async (items: number[]) => {
    batches.push(items);
    if (batches.length === 1)
      await new Promise<void>((resolve) => {
        release = resolve;
      });
    return items.map((n) => n * 10);
  });
  const first = call(1);
  const queued = [call(2), call(3), call(4)];
  release();
  expect(await first).toBe(10);
  expect(await Promise.all(queued)).toEqual([20, 30, 40]);
  expect(batches).toEqual([[1], [2, 3, 4]]);
});

it('rejects every caller of a failed batch and keeps serving later calls', async () => {
  let fail = true;
  const call = batcher(async (items: string[]) => {
    if (fail) throw new Error('database unavailable');
    return items.map((item) => item.toUpperCase());
  });
  await expect(call('a')).rejects.toThrow('database unavailable');
  fail = false;
  await expect(call('b')).resolves.toBe('B');
});

it('never sends more than maxBatch items at once', async () => {
  const sizes: number[] = [];
  let release: () => void = () => undefined;
  const call = batcher(async (items: number[]) => {
    sizes.push(items.length);
    if (sizes.length === 1)
      await new Promise<void>((resolve) => {
        release = resolve;
      });
    return items;
  }, 2);
  const calls = [1, 2, 3, 4, 5].map((n) => call(n));
  release();
  expect(await Promise.all(calls)).toEqual([1, 2, 3, 4, 5]);
  expect(sizes).toEqual([1, 2, 2]);
});
