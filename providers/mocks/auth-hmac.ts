// Mock provider for `hmac_signed`: `x-access-key`, `x-timestamp` (unix seconds, within 5 minutes) and
// `x-signature` = hex HMAC-SHA256 of `timestamp\nMETHOD\npath?query\nbody` under the account's secret.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { startAuthMock, type AuthMock } from './auth-mock';

export const HMAC_SANDBOX = { key_id: 'AKSANDBOX0001', secret: 'c2FuZGJveC1zaWduaW5nLXNlY3JldC0wMDAx' };

export function startHmacMock(): Promise<AuthMock> {
  return startAuthMock({
    credentials: HMAC_SANDBOX,
    account: { id: 'issuer_77', name: 'Acme Fiscal', extras: { tax_id: '12345678000195' } },
    check: (r) => {
      if (r.headers['x-access-key'] !== HMAC_SANDBOX.key_id) return 'Unknown access key';
      const timestamp = String(r.headers['x-timestamp'] ?? '');
      if (!/^\d{10}$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > 300)
        return 'Request timestamp missing or outside the 5 minute window';
      const expected = createHmac('sha256', HMAC_SANDBOX.secret)
        .update(`${timestamp}\n${r.method}\n${r.url}\n`)
        .update(r.body)
        .digest();
      const given = Buffer.from(String(r.headers['x-signature'] ?? ''), 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected)
        ? null
        : 'Signature does not match the request';
    },
  });
}
