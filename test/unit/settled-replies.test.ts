// Table-driven tests of the in-process cache of settled replies: an entry answers only the organization,
// attempt, project and fingerprint it was stored for, and the cache stays within its entry and byte bounds,
// dropping the least recently used first.
import { SettledReplies, serializeReply, type SettledReply } from '../../api/settled-replies';

const reply = (over: Partial<SettledReply> = {}): SettledReply => ({
  projectId: 'prj_a',
  fingerprint: 'f'.repeat(64),
  status: 200,
  json: serializeReply({ status: 'completed', idempotent_replay: true }),
  ...over,
});

describe('a lookup', () => {
  const cache = new SettledReplies();
  const stored = reply();
  cache.remember('org_a', 'att-1', stored);

  it.each([
    [
      'the same organization, attempt, project and fingerprint',
      'org_a',
      'att-1',
      'prj_a',
      'f'.repeat(64),
      true,
    ],
    ['another organization with the same attempt id', 'org_b', 'att-1', 'prj_a', 'f'.repeat(64), false],
    ['another project of the same organization', 'org_a', 'att-1', 'prj_b', 'f'.repeat(64), false],
    ['a changed request (another fingerprint)', 'org_a', 'att-1', 'prj_a', 'e'.repeat(64), false],
    ['another attempt id', 'org_a', 'att-2', 'prj_a', 'f'.repeat(64), false],
    ['ids that only concatenate alike', 'org_aa', 'tt-1', 'prj_a', 'f'.repeat(64), false],
  ])('by %s hits: %s', (_name, orgId, attemptId, projectId, fingerprint, hits) => {
    expect(cache.get(orgId, attemptId, projectId, fingerprint)).toBe(hits ? stored : undefined);
  });
});

describe('the bounds', () => {
  it('drops the least recently used entry beyond the entry limit', () => {
    const cache = new SettledReplies(2, 1 << 20);
    cache.remember('org', 'a', reply());
    cache.remember('org', 'b', reply());
    expect(cache.get('org', 'a', 'prj_a', 'f'.repeat(64))).toBeDefined(); // a is now the most recent
    cache.remember('org', 'c', reply());
    expect(['a', 'b', 'c'].map((id) => cache.get('org', id, 'prj_a', 'f'.repeat(64)) !== undefined)).toEqual([
      true,
      false,
      true,
    ]);
    expect(cache.size).toBe(2);
  });

  it('drops entries beyond the byte limit, and never holds a reply larger than the limit', () => {
    const body = (bytes: number) => Buffer.alloc(bytes, 0x20);
    const cache = new SettledReplies(100, 1_000);
    cache.remember('org', 'a', reply({ json: body(400) }));
    cache.remember('org', 'b', reply({ json: body(400) }));
    cache.remember('org', 'c', reply({ json: body(400) }));
    expect(['a', 'b', 'c'].map((id) => cache.get('org', id, 'prj_a', 'f'.repeat(64)) !== undefined)).toEqual([
      false,
      true,
      true,
    ]);
    cache.remember('org', 'huge', reply({ json: body(1_001) }));
    expect(cache.get('org', 'huge', 'prj_a', 'f'.repeat(64))).toBeUndefined();
    expect(cache.size).toBe(2);
  });

  it('counts a replaced entry once', () => {
    const cache = new SettledReplies(100, 1_000);
    for (let i = 0; i < 10; i++) cache.remember('org', 'a', reply({ json: Buffer.alloc(600, 0x20) }));
    cache.remember('org', 'b', reply({ json: Buffer.alloc(300, 0x20) }));
    expect(cache.size).toBe(2);
  });
});

describe('serializeReply', () => {
  it.each([
    [{ a: 1, b: 'ç', c: null }, '{"a":1,"b":"ç","c":null}'],
    [
      { nested: { list: [1, 'x'] }, idempotent_replay: true },
      '{"nested":{"list":[1,"x"]},"idempotent_replay":true}',
    ],
  ])('writes %j as Koa would send it', (body, text) => {
    expect(serializeReply(body).toString('utf8')).toBe(text);
  });
});
