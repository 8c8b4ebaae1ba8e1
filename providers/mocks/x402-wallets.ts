// The mock receiving-wallet provider: POST /wallets makes a fresh EVM address per Idempotency-Key (the
// same key answers the same wallet). `failNext(n)` makes the next n requests answer 503, as a provider
// outage would, so a test can see a link refused with nothing created.
import { randomBytes } from 'node:crypto';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startJsonServer } from './json-server';
import type { RunningMock } from './running-mock';

export interface X402WalletsMock extends RunningMock {
  wallets(): Array<{ id: string; address: string; owner_ref: string }>;
  failNext(count: number): void;
}

export async function startX402WalletsMock(): Promise<X402WalletsMock> {
  const byKey = new Map<string, { id: string; address: string; owner_ref: string }>();
  let failing = 0;
  const server = await startJsonServer((request) => {
    if (request.method !== 'POST' || request.path !== '/wallets')
      return { status: 404, body: { error: 'not found' } };
    if (failing > 0) {
      failing--;
      return { status: 503, body: { error: 'wallet service unavailable' } };
    }
    const key = request.headers['idempotency-key'];
    const owner = (request.body as { owner_ref?: unknown } | undefined)?.owner_ref;
    if (typeof key !== 'string' || typeof owner !== 'string')
      return { status: 400, body: { error: 'Idempotency-Key and owner_ref are required' } };
    let wallet = byKey.get(key);
    if (!wallet) {
      wallet = {
        id: `wal_${randomBytes(8).toString('hex')}`,
        address: privateKeyToAccount(generatePrivateKey()).address,
        owner_ref: owner,
      };
      byKey.set(key, wallet);
    }
    return { status: 201, body: wallet };
  });
  return { ...server, wallets: () => [...byKey.values()], failNext: (count) => (failing = count) };
}
