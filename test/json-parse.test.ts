// The gateway's JSON reader (contracts/json-parse.ts): every text reads back as the JSON it spells,
// whatever an earlier text with escaped keys did to the engine's key cache, in a process (the API over
// HTTP) and in the workflow sandbox; invalid texts are refused as the native parser refuses them.
import { randomBytes } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { hasEscapedKey, parseJson } from '../contracts/json-parse';
import { installRuntime } from '../worker/worker';
import { loadBundle } from '../worker/bundle';
import { forAll, type Random } from './support/property';
import { startGateway, type Gateway } from './support/harness';

// What poisons the engine's cache (a `\` key after the same first member), then what it misreads.
const POISON = '{"h":[],"\\\\":0}';
const CANARY = '{"h":1,"\\n":2}';
const CANARY_KEYS = ['h', '\n'];
// The engine's own parser, taken from the installed reader.
const native = (JSON.parse as unknown as Record<symbol, typeof JSON.parse>)[
  Symbol.for('gateway.json-parse.native')
];

const KEY_CHARS = [
  'a',
  'h',
  '\\',
  '"',
  '\n',
  '\t',
  '\r',
  '\b',
  '\f',
  '/',
  '\u0000',
  '\u001f',
  'é',
  '😀',
  '\u2028',
];
function key(random: Random): string {
  return Array.from({ length: random.int(0, 3) }, () => random.pick(KEY_CHARS)).join('');
}
function value(random: Random, depth: number): unknown {
  switch (random.int(0, depth > 3 ? 2 : 4)) {
    case 0:
      return random.pick([null, true, false, 0, -1.5e-7, 123456789, 'x']);
    case 1:
      return key(random);
    case 2:
      return random.int(-1000, 1000);
    case 3:
      return Array.from({ length: random.int(0, 3) }, () => value(random, depth + 1));
    default: {
      const out: Record<string, unknown> = {};
      for (let i = random.int(0, 4); i > 0; i--) out[key(random)] = value(random, depth + 1);
      return out;
    }
  }
}

describe('the JSON reader', () => {
  it('is what JSON.parse is in this realm', () => {
    expect(typeof native).toBe('function');
    expect(JSON.parse).not.toBe(native);
  });

  it('reads escaped keys right after a text that poisons the engine cache', () => {
    for (let round = 0; round < 3; round++) {
      native(POISON);
      expect(Object.keys(parseJson(CANARY) as object)).toEqual(CANARY_KEYS);
      JSON.parse(POISON);
      expect(Object.keys(JSON.parse(CANARY) as object)).toEqual(CANARY_KEYS);
    }
  });

  it('round-trips any value, escaped keys included, however it is spaced', () => {
    forAll('round trip', 2000, (random) => {
      const input = { h: value(random, 1), [key(random)]: value(random, 0), z: [value(random, 2)] };
      native(POISON);
      expect(JSON.parse(JSON.stringify(input, null, random.pick([0, 1, '\t'])))).toEqual(input);
    });
  });

  it('refuses exactly the texts the native parser refuses', () => {
    const valid = [CANARY, '[{"\\n":[1,{"\\\\":"\\"x"}]}, -0.5e+3, "\\ud83d\\ude00"]', ' { "a\\/" : null } '];
    forAll('validity', 1000, (random) => {
      const base = random.pick(valid);
      const at = random.int(0, base.length - 1);
      const text = random.bool()
        ? base.slice(0, at)
        : base.slice(0, at) +
          random.pick(['', ',', '}', ']', '"', '\\', ':', 'x', '\u0001', '0', ' ']) +
          base.slice(at + 1);
      let nativeOk = true;
      try {
        native(text);
      } catch {
        nativeOk = false;
      }
      if (nativeOk) expect(() => JSON.parse(text)).not.toThrow();
      else expect(() => JSON.parse(text)).toThrow(SyntaxError);
    });
  });

  it('keeps __proto__ an own member, duplicate keys last-wins, and deep nesting readable', () => {
    const parsed = JSON.parse('{"__proto__":{"x":1},"\\n":1,"\\n":2}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.keys(parsed)).toEqual(['__proto__', '\n']);
    expect(parsed['\n']).toBe(2);
    const depth = 100_000;
    let deep = JSON.parse(`${'['.repeat(depth)}{"\\n":1}${']'.repeat(depth)}`) as unknown;
    for (let i = 0; i < depth; i++) deep = (deep as unknown[])[0];
    expect(deep).toEqual({ '\n': 1 });
  });

  it('walks a reviver as the native parser does', () => {
    const seen: string[] = [];
    const revived = JSON.parse('{"a\\n":[1,2,{"b":3}],"c":4}', function (this: unknown, name, item) {
      seen.push(name);
      if (item === 4) return undefined;
      return typeof item === 'number' ? item * 2 : item;
    });
    expect(revived).toEqual({ 'a\n': [2, 4, { b: 6 }] });
    expect(seen).toEqual(['0', '1', 'b', '2', 'a\n', 'c', '']);
  });

  it('finds escaped keys in one pass, and only keys', () => {
    expect(hasEscapedKey('{"a":"x\\ny","b":1}')).toBe(false);
    expect(hasEscapedKey('["a\\"b:"]')).toBe(false);
    expect(hasEscapedKey('{"a\\\\" :1}')).toBe(true);
    expect(hasEscapedKey('{"a":{"\\u0041":1}}')).toBe(true);
  });
});

describe('through the API', () => {
  let gateway: Gateway;
  beforeAll(async () => {
    gateway = await startGateway({ worker: false });
  });
  afterAll(() => gateway?.stop());

  it('stores and answers the keys a body spells, after another tenant poisoned the cache', async () => {
    const other = await gateway.createTenant();
    const tenant = await gateway.createTenant();
    const send = (key: string, metadata: string) =>
      gateway.request('POST', '/v1/wallets', {
        key,
        raw: `{"display_name":"w","currency":"USD","metadata":${metadata}}`,
        headers: { 'Content-Type': 'application/json' },
      });
    expect((await send(other.key, POISON)).status).toBe(201);
    const created = await send(tenant.key, CANARY);
    expect(created.status).toBe(201);
    const wallet = created.body as { id: string; metadata: object };
    // jsonb keeps its own key order: the set of keys is what must survive.
    expect(Object.keys(wallet.metadata).sort()).toEqual([...CANARY_KEYS].sort());
    const read = await gateway.request('GET', `/v1/wallets/${wallet.id}`, { key: tenant.key });
    expect(Object.keys((read.body as { metadata: object }).metadata).sort()).toEqual([...CANARY_KEYS].sort());
  });
});

describe('in the workflow sandbox', () => {
  it("decodes an activity's answer with escaped keys the same after a poisoning one", async () => {
    installRuntime();
    const testServer = process.env.TEMPORAL_TEST_SERVER_PATH;
    const env = await TestWorkflowEnvironment.createTimeSkipping(
      testServer ? { server: { executable: { type: 'existing-path', path: testServer } } } : {},
    );
    const taskQueue = `json-${randomBytes(4).toString('hex')}`;
    const answers = [POISON, CANARY];
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      // The workflow bundle the worker runs in production (built here from the sources).
      workflowBundle: await loadBundle(`/nonexistent/${taskQueue}.js`),
      // One workflow thread, so the poisoning run and the next share the engine that decodes both.
      workflowThreadPoolSize: 1,
      activities: { probeDatabase: async () => JSON.parse(answers.shift() ?? CANARY) as unknown },
    });
    try {
      await worker.runUntil(async () => {
        for (const expected of [['h', '\\'], CANARY_KEYS]) {
          const result = await env.client.workflow.execute('workerProbe', {
            taskQueue,
            workflowId: `json-${randomBytes(4).toString('hex')}`,
          });
          expect(Object.keys(result as object)).toEqual(expected);
        }
      });
    } finally {
      await env.teardown();
    }
  });
});
