// The event stream's timing rules on a fake clock, so they are exact whatever the machine's pace: a
// heartbeat every interval while open, the terminal event followed by a close exactly the configured
// delay later (not a millisecond sooner), and nothing written after the close.
import { openEventStream, type EventStream } from '../../api/sse/event-stream';

const HEARTBEAT_MS = 300;
const CLOSE_DELAY_MS = 1_000;

beforeEach(() => {
  // Only the clock is faked: the stream's own plumbing (nextTick, microtasks) runs for real.
  jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask', 'setImmediate'] });
});
afterEach(() => {
  jest.useRealTimers();
});

interface Frame {
  id: number;
  event: string;
  data: unknown;
}

/** Everything written so far, as frames (the `retry:` preamble aside). */
function reader(events: EventStream): () => Frame[] {
  let text = '';
  events.stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return () =>
    text
      .split('\n\n')
      .filter((block) => block.startsWith('id: '))
      .map((block) => {
        const [id, event, data] = block.split('\n').map((line) => line.slice(line.indexOf(': ') + 2));
        return { id: Number(id), event, data: JSON.parse(data) };
      });
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
const names = (frames: Frame[]) => frames.map((frame) => frame.event);

it('beats on the interval while open, each beat stamped with the time', async () => {
  const opened = Date.now();
  const events = openEventStream({ heartbeatMs: HEARTBEAT_MS, closeDelayMs: CLOSE_DELAY_MS });
  const frames = reader(events);
  jest.advanceTimersByTime(HEARTBEAT_MS - 1);
  await settle();
  expect(frames()).toEqual([]);
  jest.advanceTimersByTime(1 + 2 * HEARTBEAT_MS);
  await settle();
  expect(frames()).toEqual(
    [1, 2, 3].map((n) => ({
      id: n,
      event: 'heartbeat',
      data: { at: new Date(opened + n * HEARTBEAT_MS).toISOString() },
    })),
  );
  events.stream.destroy();
});

it('closes exactly the delay after the terminal event, beating until then and writing nothing after', async () => {
  const events = openEventStream({ heartbeatMs: HEARTBEAT_MS, closeDelayMs: CLOSE_DELAY_MS });
  const frames = reader(events);
  let ended = false;
  events.stream.on('end', () => (ended = true));
  events.send('audit', { step: 'hold' });
  events.finish('outcome', { http_status: 200 });
  jest.advanceTimersByTime(CLOSE_DELAY_MS - 1);
  await settle();
  expect(events.closed()).toBe(false);
  expect(ended).toBe(false);
  // Three beats fit in the delay (at 300, 600 and 900 ms), after the outcome.
  expect(names(frames())).toEqual(['audit', 'outcome', 'heartbeat', 'heartbeat', 'heartbeat']);
  jest.advanceTimersByTime(1);
  await settle();
  expect(events.closed()).toBe(true);
  expect(ended).toBe(true);
  events.send('audit', { step: 'late' });
  jest.advanceTimersByTime(10 * HEARTBEAT_MS);
  await settle();
  expect(frames().map((frame) => frame.id)).toEqual([1, 2, 3, 4, 5]);
});

it('closes at once after the terminal event when the delay is zero', async () => {
  const events = openEventStream({ heartbeatMs: HEARTBEAT_MS, closeDelayMs: 0 });
  const frames = reader(events);
  events.finish('outcome', { http_status: 422 });
  expect(events.closed()).toBe(false);
  jest.advanceTimersByTime(0);
  await settle();
  expect(events.closed()).toBe(true);
  expect(names(frames())).toEqual(['outcome']);
});
