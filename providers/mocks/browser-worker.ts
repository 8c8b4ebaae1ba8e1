// The mock browser worker: a real HTTP server speaking the worker's protocol (contexts, sessions with
// a live view, release). Tests script it to fail a step or to offer no live view, and read what it saw.
import { randomBytes } from 'node:crypto';
import { startJsonServer } from './json-server';
import type { RunningMock } from './running-mock';

export interface MockBrowserSession {
  id: string;
  context_id: string;
  start_url: string;
  status: 'running' | 'released';
}

export interface BrowserWorkerMock extends RunningMock {
  /** The next `count` calls to that step answer 500. */
  failNext(step: 'context' | 'session' | 'release', count?: number): void;
  /** The next context minted repeats the last one's id, as a faulty worker might. */
  repeatNextContext(): void;
  /** The live view URL sessions report; '' makes the worker offer none. */
  setLiveView(mode: 'url' | 'empty'): void;
  contexts(): string[];
  sessions(): MockBrowserSession[];
}

const id = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;

export async function startBrowserWorkerMock(options: { port?: number } = {}): Promise<BrowserWorkerMock> {
  const failures = { context: 0, session: 0, release: 0 };
  let liveView: 'url' | 'empty' = 'url';
  let repeat = false;
  const contexts: string[] = [];
  const sessions = new Map<string, MockBrowserSession>();
  const failing = (step: keyof typeof failures) => {
    if (failures[step] === 0) return false;
    failures[step] -= 1;
    return true;
  };
  const server = await startJsonServer(({ method, path, body }) => {
    const input = (body ?? {}) as Record<string, unknown>;
    if (method === 'POST' && path === '/v1/contexts') {
      if (failing('context')) return { status: 500, body: { error: 'context pool exhausted' } };
      const context = repeat && contexts.length > 0 ? contexts[contexts.length - 1] : id('ctx');
      repeat = false;
      contexts.push(context);
      return { status: 201, body: { id: context } };
    }
    if (method === 'POST' && path === '/v1/sessions') {
      if (failing('session')) return { status: 500, body: { error: 'no browser available' } };
      if (typeof input.context_id !== 'string' || !contexts.includes(input.context_id))
        return { status: 404, body: { error: 'unknown context' } };
      const session: MockBrowserSession = {
        id: id('sess'),
        context_id: input.context_id,
        start_url: String(input.start_url ?? ''),
        status: 'running',
      };
      sessions.set(session.id, session);
      const live = liveView === 'url' ? `https://live.browser-worker.test/sessions/${session.id}` : '';
      return { status: 201, body: { id: session.id, live_view_url: live } };
    }
    const release = /^\/v1\/sessions\/([^/]+)\/release$/.exec(path);
    if (method === 'POST' && release) {
      if (failing('release')) return { status: 500, body: { error: 'release failed' } };
      const session = sessions.get(decodeURIComponent(release[1]));
      if (!session) return { status: 404, body: { error: 'unknown session' } };
      session.status = 'released';
      return { status: 200, body: { id: session.id, status: 'released' } };
    }
    return { status: 404, body: { error: 'not found' } };
  }, options.port);
  return {
    ...server,
    failNext(step, count = 1) {
      failures[step] += count;
    },
    repeatNextContext() {
      repeat = true;
    },
    setLiveView(mode) {
      liveView = mode;
    },
    contexts: () => [...contexts],
    sessions: () => [...sessions.values()].map((s) => ({ ...s })),
  };
}
