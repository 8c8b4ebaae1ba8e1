// The boletos a consumer owes, through HTTP: read from the DDA provider for the consumer's active
// registrations, only lines whose check digits verify, dates checked before the provider is asked.
import type { DdaMock } from '../providers/mocks/dda';
import { newCpf, read, register, statusBecomes, verifiedConsumer } from './support/dda';
import { startGateway, type Gateway, type Tenant } from './support/harness';

describe('DDA boletos', () => {
  let gw: Gateway;
  let tenant: Tenant;
  let dda: DdaMock;
  beforeAll(async () => {
    gw = await startGateway();
    tenant = await gw.createTenant();
    dda = gw.mocks.dda as DdaMock;
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it('lists the boletos an active registration owes, only those whose linha digitavel verifies', async () => {
    const document = newCpf();
    const consumerId = await verifiedConsumer(gw, tenant, { document, allowlist: [document] });
    const boletos = (from: string, to: string, key = tenant.key) =>
      gw.request('GET', `/v1/consumers/${consumerId}/dda/boletos?from_date=${from}&to_date=${to}`, { key });

    const none = await boletos('2026-03-01', '2026-03-31');
    expect(none.body).toEqual({ from_date: '2026-03-01', to_date: '2026-03-31', count: 0, boletos: [] });

    await register(gw, tenant, consumerId, { document, idempotency_key: 'k' });
    await statusBecomes(gw, tenant, consumerId, document, 'active');
    dda.setBoletos(document, [
      {
        digitableLine: '23793.38128 60007.827136 95000.063305 9 75520000370000',
        amount: '370.00',
        dueDate: '2026-03-10',
        beneficiaryName: 'Energia SA',
        status: 'OPEN',
      },
      {
        digitableLine: '836200000005 667800481000 180975657313 001589636081',
        amount: '66.78',
        dueDate: '2026-03-20',
        beneficiaryName: 'Prefeitura',
        status: 'PAID',
      },
      // One digit off: never handed on.
      {
        digitableLine: '23793381286000782713695000063305975520000370001',
        amount: '370.00',
        dueDate: '2026-03-11',
        beneficiaryName: 'Forged',
        status: 'OPEN',
      },
      {
        digitableLine: '42297.11504 00001.954411 60020.034520 2 68610000054659',
        amount: '546.59',
        dueDate: '2026-05-01',
        beneficiaryName: 'Outside the range',
        status: 'OPEN',
      },
    ]);
    const listed = await boletos('2026-03-01', '2026-03-31');
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      from_date: '2026-03-01',
      to_date: '2026-03-31',
      count: 2,
      boletos: [
        {
          linha_digitavel: '23793381286000782713695000063305975520000370000',
          status: 'open',
          document,
          amount_minor: '37000',
          due_date: '2026-03-10',
          beneficiary_name: 'Energia SA',
        },
        {
          linha_digitavel: '836200000005667800481000180975657313001589636081',
          status: 'paid',
          document,
          amount_minor: '6678',
          due_date: '2026-03-20',
          beneficiary_name: 'Prefeitura',
        },
      ],
    });

    for (const [from, to, code] of [
      ['2026-02-30', '2026-03-10', 'invalid_query'],
      ['2026-03-10', '2026-03-01', 'invalid_query'],
      ['2026-3-1', '2026-03-10', 'invalid_query'],
      ['2026-01-01', '2026-06-30', 'invalid_date_range'],
    ]) {
      const refused = await boletos(from, to);
      expect([from, to, refused.status, refused.body.error.code]).toEqual([from, to, 400, code]);
    }
    const missing = await gw.request('GET', `/v1/consumers/${consumerId}/dda/boletos?from_date=2026-03-01`, {
      key: tenant.key,
    });
    expect(missing.status).toBe(400);
    const other = await gw.createTenant();
    expect((await boletos('2026-03-01', '2026-03-31', other.key)).status).toBe(404);
  });
});
