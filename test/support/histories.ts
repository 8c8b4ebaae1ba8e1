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

/**
 * Every JSON history under test/replay/ (the older binary `.history` files belong to their own tests), or
 * under one of its folders, where a workflow outside the money engine keeps its own.
 */
export function recordedHistories(dir = REPLAY_DIR): RecordedHistory[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => {
      const history = fromJson(readFileSync(path.join(dir, file), 'utf8'));
      return { name: file.replace(/\.json$/, ''), workflowType: workflowTypeOf(history), history };
    });
}

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
