// Recorded workflow histories: a finished workflow's history is replayed on the current bundle at once
// (the code replays its own runs), and with RECORD_HISTORIES=1 (`npm run record-histories`) saved as
// JSON under test/replay/, where later versions of the workflows must keep replaying it.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import type { Gateway } from './harness';

type History = temporal.api.history.v1.IHistory;
const { History } = temporal.api.history.v1;

// Plain JSON of the protobuf message (enums by name, 64-bit numbers and bytes as strings). The SDK's
// historyToJSON/historyFromJSON cannot be used: @temporalio/common brings protobufjs 8 while the
// generated protos are built on protobufjs 7, and its ProtoJSON rejects their types.
const toJson = (history: History): string =>
  `${JSON.stringify(History.toObject(History.fromObject(history), { longs: String, enums: String, bytes: String }), null, 1)}\n`;
const fromJson = (text: string): temporal.api.history.v1.History => History.fromObject(JSON.parse(text));

export const REPLAY_DIR = path.join(__dirname, '..', 'replay');
export const RECORDING = process.env.RECORD_HISTORIES === '1';

export const replayBundle = () => ({ workflowBundle: { codePath: process.env.GATEWAY_WORKFLOW_BUNDLE! } });

export const workflowTypeOf = (history: History): string | undefined =>
  history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? undefined;

/**
 * Waits for the workflow to close, replays its history on the current bundle, saves it as `name.json`
 * when recording, and returns it with the workflow's result for the test's own checks. It waits through the API's plain client,
 * which leaves the time-skipping clock alone (a pending approval would otherwise expire while a test
 * waits for something else); `skipTime` waits through the test server's own client, which skips it.
 */
export async function replayFinished<R = unknown>(
  gw: Gateway,
  workflowId: string,
  name: string,
  options: { skipTime?: boolean; dir?: string } = {},
): Promise<{ history: History; result: R }> {
  const client = options.skipTime ? gw.env.client : gw.deps.temporal.client;
  const handle = client.workflow.getHandle(workflowId);
  const result = (await handle.result()) as R;
  const history = await handle.fetchHistory();
  await Worker.runReplayHistory(replayBundle(), history, workflowId);
  if (RECORDING) {
    writeFileSync(path.join(options.dir ?? REPLAY_DIR, `${name}.json`), toJson(history));
  }
  return { history, result };
}

export interface RecordedHistory {
  name: string;
  workflowType: string | undefined;
  history: History;
}

/** Every JSON history in `dir` (the older binary `.history` files belong to their own tests). */
export function recordedHistories(dir = REPLAY_DIR): RecordedHistory[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => {
      const history = fromJson(readFileSync(path.join(dir, file), 'utf8'));
      return { name: file.replace(/\.json$/, ''), workflowType: workflowTypeOf(history), history };
    });
}

/** Every JSON history under test/replay/ and each of its folders: what the coverage checks read. */
export const everyRecordedHistory = (): RecordedHistory[] => [
  ...recordedHistories(REPLAY_DIR),
  ...readdirSync(REPLAY_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => recordedHistories(path.join(REPLAY_DIR, entry.name))),
];

/** The activity types a history scheduled, in order: what a test reads to know which path it recorded. */
export const scheduledActivities = (history: History): string[] =>
  (history.events ?? []).flatMap(
    (event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? [],
  );

/** The activity types a history ran as local activities (their result markers), in order. */
export const localActivities = (history: History): string[] =>
  (history.events ?? []).flatMap((event) => {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_local_activity') return [];
    const data = marker.details?.data?.payloads?.[0]?.data;
    if (!data) return [];
    const parsed = JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type?: string };
    return parsed.activity_type ? [parsed.activity_type] : [];
  });

/** The platform workflows' recordings (every workflow but the money ones), beside the money workflows'. */
export const PLATFORM_REPLAY_DIR = path.join(REPLAY_DIR, 'platform');

// Fields replay never reads (which worker polled and its build, the server's task and request ids): left
// out of a recording, which is replayed in its saved form, so a field it needs cannot go missing unnoticed.
const UNREAD = new Set(['identity', 'binaryChecksum', 'workerVersion', 'taskId', 'requestId']);
const withoutUnread = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withoutUnread);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !UNREAD.has(key))
      .map(([key, inner]) => [key, withoutUnread(inner)]),
  );
};
const toCompactJson = (history: History): string =>
  `${JSON.stringify(withoutUnread(History.toObject(History.fromObject(history), { longs: String, enums: String, bytes: String })))}\n`;

/**
 * Waits for the workflow to close (completed or failed), trims its history to what replay reads, replays
 * that on the current bundle, and saves it as `platform/name.json` when recording. Waiting is as in
 * `replayFinished`: `skipTime` lets the time-skipping server skip its clock to the workflow's timers.
 */
export async function recordFinished<R = unknown>(
  gw: Gateway,
  workflowId: string,
  name: string,
  options: { skipTime?: boolean } = {},
): Promise<{ history: History; result?: R; failure?: Error }> {
  const client = options.skipTime ? gw.env.client : gw.deps.temporal.client;
  const handle = client.workflow.getHandle(workflowId);
  const outcome = await handle.result().then(
    (result: R) => ({ result }),
    (failure: Error) => ({ failure }),
  );
  const text = toCompactJson(await handle.fetchHistory());
  const history = fromJson(text);
  await Worker.runReplayHistory(replayBundle(), history, workflowId);
  if (RECORDING) writeFileSync(path.join(PLATFORM_REPLAY_DIR, `${name}.json`), text);
  return { history, ...outcome };
}

/** The workflow types the worker registers: every function the bundle's entry exports. */
export async function registeredWorkflowTypes(): Promise<string[]> {
  return Object.keys(await import('../../workflows')).sort();
}
