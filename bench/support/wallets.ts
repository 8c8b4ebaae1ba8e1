// Wallets a benchmark spends from: created through the API and funded with far more than any run spends.
import type { GatewayClient } from '../../test/support/client';

export async function fundedWallets(
  gateway: Pick<GatewayClient, 'request'>,
  tenant: { key: string; orgId: string },
  count: number,
  label: string,
): Promise<string[]> {
  const wallets: string[] = [];
  for (let i = 0; i < count; i++) {
    const created = await gateway.request('POST', '/v1/wallets', {
      key: tenant.key,
      body: { display_name: `${label} ${i}`, currency: 'BRL' },
    });
    if (created.status !== 201) throw new Error(`wallet not created: ${created.status} ${created.text}`);
    const funded = await gateway.request('POST', '/v1/ledger-entries', {
      key: tenant.key,
      body: {
        wallet_id: created.body.id,
        org_id: tenant.orgId,
        currency: 'BRL',
        amount_minor: '1000000000000',
        kind: 'fund',
      },
    });
    if (funded.status !== 201) throw new Error(`wallet not funded: ${funded.status} ${funded.text}`);
    wallets.push(created.body.id);
  }
  return wallets;
}

/** Wallet execute bodies for a benchmark: one new attempt per body, `<prefix>-<i>`. */
export function executeBodies(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) =>
    JSON.stringify({
      amount: 1.23,
      currency: 'BRL',
      recipient: 'bench-merchant',
      description: 'benchmark purchase',
      mandate_id: 'mdt_bench',
      attempt_id: `${prefix}-${i}`,
    }),
  );
}
