// Pure rules of webhook delivery, table-driven.
import { Webhook } from 'standardwebhooks';
import { normalizeCodehostEvent } from '../../domain/codehost/ci-event';
import { judgeAttempt } from '../../domain/webhooks/attempt-outcome';
import { clampDeliveryLimit, parseDeliveryId } from '../../domain/webhooks/listing-rules';
import { maxAttempts, nextRetryDelay, parseRetryAfter } from '../../domain/webhooks/retry-schedule';
import { generateSigningSecret, signedHeaders } from '../../domain/webhooks/signing';
import { checkWebhookUrl, isPrivateAddress } from '../../domain/webhooks/url-policy';
import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule } from '../../runtime/retry-schedule';

const schedule = parseRetrySchedule(DEFAULT_RETRY_SCHEDULE);

describe('retry schedule', () => {
  it("defaults to Svix's: eight attempts over about 27.6 hours", () => {
    expect(schedule).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(maxAttempts(schedule)).toBe(8);
    expect(schedule.reduce((a, b) => a + b, 0) / 3_600_000).toBeCloseTo(27.6, 1);
  });
  it.each([
    [1, null, 5_000],
    [2, null, 300_000],
    [7, null, 36_000_000],
    [8, null, null],
    [1, 60_000, 60_000],
    [3, 60_000, 1_800_000],
    [1, 86_400_000, 36_000_000],
  ])('after attempt %i with Retry-After %p waits %p', (attempt, retryAfter, expected) => {
    expect(nextRetryDelay(schedule, attempt, retryAfter)).toBe(expected);
  });
  it.each(['', '5', '5x', '0s', '8d', 'abc'])('refuses the schedule %p', (spec) =>
    expect(() => parseRetrySchedule(spec)).toThrow(),
  );
  it.each([
    ['120', 0, 120_000],
    ['Thu, 01 Jan 1970 00:01:40 GMT', 40_000, 60_000],
    ['soon', 0, null],
    [undefined, 0, null],
  ])('reads Retry-After %p', (value, now, expected) => expect(parseRetryAfter(value, now)).toBe(expected));
});

describe('attempt verdicts', () => {
  it.each([
    [200, true, null, false],
    [204, true, null, false],
    [299, true, null, false],
    [301, false, 'redirect_not_followed', false],
    [302, false, 'redirect_not_followed', false],
    [410, false, 'gone', true],
    [400, false, 'http_400', false],
    [500, false, 'http_500', false],
  ])('status %i: delivered %p, error %p, pause %p', (status, delivered, error, pause) => {
    expect(judgeAttempt({ status }, null)).toMatchObject({ delivered, error, pauseEndpoint: pause });
  });
  it('honours Retry-After on 429 and 503 only', () => {
    expect(judgeAttempt({ status: 429 }, null).honourRetryAfter).toBe(true);
    expect(judgeAttempt({ status: 503 }, null).honourRetryAfter).toBe(true);
    expect(judgeAttempt({ status: 500 }, null).honourRetryAfter).toBe(false);
  });
  it('reports transport errors', () =>
    expect(judgeAttempt(null, 'timeout')).toMatchObject({ delivered: false, error: 'timeout' }));
});

describe('webhook URL policy', () => {
  it.each([
    ['https://hooks.example.com/a', 'live', true],
    ['http://hooks.example.com/a', 'live', false],
    ['http://127.0.0.1:3000/a', 'test', true],
    ['https://127.0.0.1/a', 'live', false],
    ['https://172.20.0.1/a', 'live', false],
    ['https://100.64.1.1/a', 'live', false],
    ['https://[fd00::1]/a', 'live', false],
    ['https://[fe80::1]/a', 'live', false],
    ['https://printer.local/a', 'live', false],
    ['ftp://hooks.example.com/a', 'test', false],
    ['not a url', 'test', false],
    ['https://8.8.8.8/a', 'live', true],
  ] as const)('%s in %s: allowed %p', (url, environment, ok) => {
    expect(checkWebhookUrl(url, environment).ok).toBe(ok);
  });
  it.each([
    ['127.0.0.1', true],
    ['10.255.0.1', true],
    ['169.254.169.254', true],
    ['::1', true],
    ['::ffff:10.0.0.1', true],
    ['93.184.216.34', false],
    ['2606:4700::1', false],
  ])('address %s is private: %p', (address, expected) => expect(isPrivateAddress(address)).toBe(expected));
});

describe('delivery listing rules', () => {
  it.each([
    ['50', 50],
    ['0', 1],
    ['-3', 1],
    ['201', 200],
    ['abc', 50],
    [undefined, 50],
    ['', 50],
    ['12abc', 50],
    ['7', 7],
  ])('limit %p is %i', (raw, expected) => expect(clampDeliveryLimit(raw)).toBe(expected));
  it.each(['0', '00', 'abc', '-1', '1.0', '12345678901234567890', ''])(
    'delivery id %p is invalid_delivery_id',
    (raw) => {
      expect(() => parseDeliveryId(raw)).toThrow(
        expect.objectContaining({ status: 400, code: 'invalid_delivery_id' }),
      );
    },
  );
  it('reads ids past int8 as naming nothing', () => {
    expect(parseDeliveryId('42')).toBe(42n);
    expect(parseDeliveryId('9999999999999999999')).toBeNull();
  });
});

describe('Standard Webhooks signing', () => {
  it('produces signatures an independent Standard Webhooks implementation verifies', () => {
    const secret = generateSigningSecret();
    const body = JSON.stringify({ id: 'evt_1', type: 'payment.succeeded', data: { amount_minor: '100' } });
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = signedHeaders(secret, 'evt_1', timestamp, body);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, headers as unknown as Record<string, string>)).toEqual(
      JSON.parse(body),
    );
    expect(() =>
      new Webhook(generateSigningSecret()).verify(body, headers as unknown as Record<string, string>),
    ).toThrow();
    expect(() =>
      new Webhook(secret).verify(`${body} `, headers as unknown as Record<string, string>),
    ).toThrow();
  });
});

describe('code-host normalization', () => {
  it('marks a closed and merged pull request as merged', () => {
    const result = normalizeCodehostEvent('pull_request', {
      action: 'closed',
      repository: { full_name: 'a/b' },
      pull_request: { merged: true, number: 1, title: 't', head: { ref: 'x' } },
    });
    expect(result).toMatchObject({
      processed: true,
      event: { type: 'pull_request', repo: 'a/b', branch: 'x', status: 'merged' },
    });
  });
  it('refuses a payload that names no repository', () => {
    expect(normalizeCodehostEvent('push', {})).toEqual({
      processed: false,
      reason: 'payload names no repository',
    });
  });
});
