// Reconciliation through HTTP: provider settlement records against the ledger's provider debits, anomalies
// opened once per finding, listed and resolved; tenant isolation of the anomaly routes.
import type { PaymentsMock } from '../providers/mocks/payments';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { fund, newWallet } from './support/money';

let gw: Gateway;
let mock: PaymentsMock;
beforeAll(async () => {
  gw = await startGateway();
  mock = gw.mocks.payments as PaymentsMock;
});
afterAll(async () => {
  await gw?.stop();
});

let n = 0;
const pay = (t: Tenant, wallet: string, attemptId: string) =>
  gw.request('POST', `/v1/wallets/${wallet}/execute`, {
    key: t.key,
    body: {
      amount: 10,
      currency: 'BRL',
      recipient: 'shop',
      description: 'thing',
      mandate_id: 'mdt_1',
      attempt_id: attemptId,
    },
  });

it('matches settled debits, and opens debit_without_receipt and receipt_without_debit once each', async () => {
  const t = await gw.createTenant();
  const wallet = await newWallet(gw, t);
  await fund(gw, t, wallet, 10_000);
  const settled = `rc-${++n}`;
  const unsettled = `rc-${++n}`;
  expect((await pay(t, wallet, settled)).body.status).toBe('completed');
  const lost = await pay(t, wallet, unsettled);
  mock.dropSettlement(lost.body.payment.provider_payment_id);
  mock.addSettlement({
    payment_id: 'mpay_stray',
    reference: 'unknown-attempt',
    amount_minor: '777',
    currency: 'BRL',
    settled_at: new Date().toISOString(),
    metadata: { org_id: t.orgId, project_id: t.projectId },
  });
  mock.addSettlement({
    payment_id: 'mpay_elsewhere',
    reference: 'x',
    amount_minor: '1',
    currency: 'BRL',
    settled_at: new Date().toISOString(),
    metadata: { org_id: 'org_other', project_id: 'prj_other' },
  });

  const run = await gw.request('POST', '/v1/wallet-reconciliations', { key: t.key });
  expect(run.status).toBe(201);
  expect(run.body).toMatchObject({
    status: 'completed',
    debits_checked: 2,
    receipts_checked: 2,
    anomalies_opened: 2,
  });
  expect((await gw.request('GET', `/v1/wallet-reconciliations/${run.body.id}`, { key: t.key })).body.id).toBe(
    run.body.id,
  );

  const anomalies = (await gw.request('GET', '/v1/wallet-anomalies?status=open', { key: t.key })).body
    .anomalies;
  const byKind = Object.fromEntries(anomalies.map((a: { kind: string }) => [a.kind, a]));
  expect(byKind.debit_without_receipt).toMatchObject({
    wallet_id: wallet,
    amount_minor: '1000',
    currency: 'BRL',
    external_ref: `payment:${lost.body.payment.provider_payment_id}`,
    status: 'open',
  });
  expect(byKind.debit_without_receipt.ledger_entry_id).toMatch(/^\d+$/);
  expect(byKind.receipt_without_debit).toMatchObject({
    wallet_id: null,
    amount_minor: '777',
    external_ref: 'payment:mpay_stray',
    ledger_entry_id: null,
  });

  const entries = (await gw.request('GET', `/v1/wallets/${wallet}/ledger-entries?kind=debit`, { key: t.key }))
    .body.entries;
  expect(entries.filter((e: { reconciled_at: string | null }) => e.reconciled_at !== null)).toHaveLength(1);

  const again = await gw.request('POST', '/v1/wallet-reconciliations', { key: t.key });
  expect(again.body.anomalies_opened).toBe(0);
  expect((await gw.request('GET', '/v1/wallet-anomalies', { key: t.key })).body.anomalies).toHaveLength(2);
});

it('resolves or dismisses an open anomaly once, with a note', async () => {
  const t = await gw.createTenant();
  const wallet = await newWallet(gw, t);
  await fund(gw, t, wallet, 10_000);
  mock.addSettlement({
    payment_id: `mpay_orphan_${++n}`,
    reference: 'r',
    amount_minor: '5',
    currency: 'BRL',
    settled_at: new Date().toISOString(),
    metadata: { org_id: t.orgId, project_id: t.projectId },
  });
  await gw.request('POST', '/v1/wallet-reconciliations', { key: t.key });
  const [anomaly] = (await gw.request('GET', '/v1/wallet-anomalies', { key: t.key })).body.anomalies;
  const bad = await gw.request('POST', `/v1/wallet-anomalies/${anomaly.id}/resolve`, {
    key: t.key,
    body: { status: 'open' },
  });
  expect(bad.status).toBe(400);
  const resolved = await gw.request('POST', `/v1/wallet-anomalies/${anomaly.id}/resolve`, {
    key: t.key,
    body: { status: 'dismissed', note: 'test deposit by the provider' },
  });
  expect(resolved.status).toBe(200);
  expect(resolved.body).toMatchObject({
    status: 'dismissed',
    resolution_note: 'test deposit by the provider',
  });
  expect(resolved.body.resolved_at).not.toBeNull();
  const twice = await gw.request('POST', `/v1/wallet-anomalies/${anomaly.id}/resolve`, {
    key: t.key,
    body: { status: 'resolved' },
  });
  expect(twice.status).toBe(409);
  expect(
    (await gw.request('GET', '/v1/wallet-anomalies?status=open', { key: t.key })).body.anomalies,
  ).toHaveLength(0);
});

it('keeps anomalies and runs inside their tenant', async () => {
  const t = await gw.createTenant();
  const other = await gw.createTenant();
  mock.addSettlement({
    payment_id: `mpay_iso_${++n}`,
    reference: 'r',
    amount_minor: '5',
    currency: 'BRL',
    settled_at: new Date().toISOString(),
    metadata: { org_id: t.orgId, project_id: t.projectId },
  });
  const run = await gw.request('POST', '/v1/wallet-reconciliations', { key: t.key });
  const [anomaly] = (await gw.request('GET', '/v1/wallet-anomalies', { key: t.key })).body.anomalies;
  expect((await gw.request('GET', '/v1/wallet-anomalies', { key: other.key })).body.anomalies).toHaveLength(
    0,
  );
  const resolve = await gw.request('POST', `/v1/wallet-anomalies/${anomaly.id}/resolve`, {
    key: other.key,
    body: { status: 'resolved' },
  });
  expect(resolve.status).toBe(404);
  expect(resolve.body.error.code).toBe('not_found');
  expect(
    (await gw.request('GET', `/v1/wallet-reconciliations/${run.body.id}`, { key: other.key })).status,
  ).toBe(404);
  expect((await gw.request('GET', '/v1/wallet-anomalies', { key: t.key })).body.anomalies[0].status).toBe(
    'open',
  );
});
