// Table-driven tests of the platform's pure rules: slugs, settings, key format, ids, secret box, config.
import { createHmac } from 'node:crypto';
import { decodeTime } from 'ulid';
import { checkSlug } from '../../domain/tenancy/slug';
import { checkSettings, effectiveSettings } from '../../domain/tenancy/settings';
import { generateApiKey, hashApiKey, keyEnvironment, keyHint } from '../../domain/tenancy/api-key-format';
import { prefixedId, randomToken, sortableId, ulid } from '../../domain/ids';
import { open, seal, sealedVersion } from '../../domain/crypto/secret-box';
import { developmentKeyRing, parseKeyRing } from '../../runtime/key-ring';
import { ConfigError, loadConfig } from '../../runtime/config';
import { ApiError } from '../../domain/errors';

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (error) {
    return error instanceof ApiError ? error.code : 'threw';
  }
};

describe('slug rules', () => {
  it.each([
    ['checkout', undefined],
    ['a', undefined],
    ['a_b-c9', undefined],
    ['x'.repeat(64), undefined],
    ['x'.repeat(65), 'slug_invalid'],
    ['', 'slug_invalid'],
    ['Checkout', 'slug_invalid'],
    ['check out', 'slug_invalid'],
    ['chéckout', 'slug_invalid'],
    ['default', 'slug_reserved'],
  ])('%j → %s', (slug, code) => {
    expect(codeOf(() => checkSlug(slug))).toBe(code);
  });
});

describe('settings', () => {
  it.each([
    [{ approval_ttl_seconds: 60 }, undefined],
    [{ approval_ttl_seconds: 59 }, 'invalid_body'],
    [{ approval_ttl_seconds: 1.5 }, 'invalid_body'],
    [{ webhook_auto_pause_after: 0 }, 'invalid_body'],
    [{ ted_merchant_allowlist_fallback: 'true' }, 'invalid_body'],
    [{ receipt_timezone: 'America/Sao_Paulo' }, undefined],
    [{ receipt_timezone: 'Europe/Nowhere' }, 'invalid_body'],
    [{ nope: 1 }, 'invalid_body'],
    [{ nope: null }, 'invalid_body'],
    [JSON.parse('{"__proto__": 1}') as Record<string, unknown>, 'invalid_body'],
    [{ constructor: 1 }, 'invalid_body'],
    [{ constructor: null }, 'invalid_body'],
  ])('%j → %s', (patch, code) => {
    expect(codeOf(() => checkSettings(patch, {}))).toBe(code);
  });

  it('merges, resets with null, and reports only real changes', () => {
    const stored = { approval_ttl_seconds: 600, webhook_auto_pause_after: 3 };
    const { settings, changes } = checkSettings(
      { approval_ttl_seconds: 600, webhook_auto_pause_after: null, receipt_timezone: 'UTC' },
      stored,
    );
    expect(settings).toEqual({ approval_ttl_seconds: 600, receipt_timezone: 'UTC' });
    expect(changes).toEqual({
      webhook_auto_pause_after: { from: 3, to: null },
      receipt_timezone: { from: null, to: 'UTC' },
    });
    expect(effectiveSettings(settings).webhook_auto_pause_after).toBe(5);
  });
});

describe('API key format', () => {
  it.each(['live', 'test'] as const)('mints 41-character %s keys that parse back', (environment) => {
    const key = generateApiKey(environment);
    expect(key).toHaveLength(41);
    expect(keyEnvironment(key)).toBe(environment);
    expect(keyHint(key)).toBe(`${key.slice(0, 9)}...${key.slice(-4)}`);
  });

  it.each([
    'csk_prod_' + 'a'.repeat(32),
    'csk_test_' + 'a'.repeat(31),
    'csk_test_' + 'a'.repeat(31) + '!',
    'sk_test_x',
    '',
  ])('rejects %j', (value) => {
    expect(keyEnvironment(value)).toBeUndefined();
  });

  it('hashes with the pepper, so a different pepper gives a different hash', () => {
    const key = generateApiKey('test');
    expect(hashApiKey(key, 'a')).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key, 'a')).not.toBe(hashApiKey(key, 'b'));
  });

  it('answers the HMAC of the key under the pepper, the first time and every time after', () => {
    const key = generateApiKey('live');
    const hmac = (pepper: string) => createHmac('sha256', pepper).update(key).digest('hex');
    for (let i = 0; i < 3; i++) {
      expect(hashApiKey(key, 'pepper-one')).toBe(hmac('pepper-one'));
      expect(hashApiKey(key, 'pepper-two')).toBe(hmac('pepper-two'));
    }
    // A pepper that ends where another begins is still another pepper.
    expect(hashApiKey(`x${key}`, 'ab')).toBe(createHmac('sha256', 'ab').update(`x${key}`).digest('hex'));
    expect(hashApiKey(key, 'abx')).toBe(hmac('abx'));
  });
});

describe('ids', () => {
  it('makes spec-shaped prefixed ids and sortable ulids', () => {
    expect(prefixedId('prj')).toMatch(/^prj_[0-9A-Za-z]{16}$/);
    expect(randomToken(32)).toMatch(/^[0-9A-Za-z]{32}$/);
    expect(sortableId('req')).toMatch(/^req_[0-9a-hjkmnp-tv-z]{26}$/);
    const ids = Array.from({ length: 2000 }, () => ulid());
    expect(new Set(ids).size).toBe(ids.length);
    // Ids made in the same millisecond share its time part; later ones sort after.
    const later = Date.now();
    const made = ulid();
    expect(decodeTime(made.toUpperCase())).toBeGreaterThanOrEqual(later);
    expect([...ids].sort().at(-1)!.slice(0, 10) <= made.slice(0, 10)).toBe(true);
    // The random part uses every character of the alphabet about equally (2000 ids, 32,000 characters).
    const counts = new Map<string, number>();
    for (const id of ids) for (const char of id.slice(10)) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(32);
    for (const count of counts.values()) expect(Math.abs(count - 1000)).toBeLessThan(200);
  });

  it('spreads random characters evenly across the alphabet', () => {
    const counts = new Map<string, number>();
    for (const char of randomToken(62_000)) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(62);
    for (const count of counts.values()) expect(Math.abs(count - 1000)).toBeLessThan(200);
  });
});

describe('secret box', () => {
  const ring = parseKeyRing(
    `1:${Buffer.alloc(32, 1).toString('base64')},2:${Buffer.alloc(32, 2).toString('base64')}`,
  );

  it('round-trips under the newest key and still opens values sealed under an older one', () => {
    const sealed = seal(ring, 'whsec_secret', 'trg_1');
    expect(sealedVersion(sealed)).toBe(2);
    expect(open(ring, sealed, 'trg_1')).toBe('whsec_secret');
    const old = seal({ current: 1, keys: ring.keys }, 'older', 'x');
    expect(open(ring, old, 'x')).toBe('older');
  });

  it('refuses a tampered value, the wrong associated data, or an unknown key version', () => {
    const sealed = seal(ring, 'value', 'a');
    const parts = sealed.split('.');
    const tampered = [parts[0], parts[1], parts[2], Buffer.from('other').toString('base64url')].join('.');
    expect(() => open(ring, tampered, 'a')).toThrow();
    expect(() => open(ring, sealed, 'b')).toThrow();
    expect(() => open(developmentKeyRing(), sealed.replace(/^v2/, 'v9'), 'a')).toThrow();
  });

  it.each(['', '1:short', 'x:abc', `1:${Buffer.alloc(16).toString('base64')}`])(
    'rejects key ring %j',
    (spec) => {
      expect(() => parseKeyRing(spec)).toThrow();
    },
  );
});

describe('config', () => {
  it('applies defaults for a fresh machine', () => {
    const config = loadConfig({});
    expect(config.port).toBe(8080);
    expect(config.temporal).toMatchObject({ namespace: 'default', taskQueue: 'gateway', address: undefined });
    expect(config.databaseUrl).toBeUndefined();
    expect(config.databasePreparedStatements).toBe(true);
    expect(loadConfig({ DATABASE_PREPARED_STATEMENTS: 'off' }).databasePreparedStatements).toBe(false);
  });

  it.each([
    [{ PORT: 'eighty' }],
    [{ PORT: '70000' }],
    [{ GATEWAY_SERVICE_TOKEN: 'short' }],
    [{ LOG_LEVEL: 'loud' }],
    [{ PROVIDER_PIX_URL: 'not a url' }],
    [{ DATABASE_PREPARED_STATEMENTS: 'sometimes' }],
  ])('refuses %j', (env) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
  });

  it('reads live provider URLs apart from the sandbox ones', () => {
    const config = loadConfig({
      PROVIDER_PAYMENTS_URL: 'http://127.0.0.1:9000',
      PROVIDER_PAYMENTS_LIVE_URL: 'https://payments.example/',
    });
    expect([config.providerUrls, config.providerLiveUrls]).toEqual([
      { payments: 'http://127.0.0.1:9000' },
      { payments: 'https://payments.example' },
    ]);
  });

  it('reads provider URLs by name', () => {
    expect(loadConfig({ PROVIDER_PIX_PSP_URL: 'http://127.0.0.1:9000/' }).providerUrls).toEqual({
      pix_psp: 'http://127.0.0.1:9000',
    });
  });
});
