// The Pix PSP and TED adapters against their mock servers over real HTTP: each scripted behaviour
// (succeed, refuse, time out, lost, late, 503) as the workflow will see it.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startPixPspMock, type PixPspMock } from '../providers/mocks/pix-psp';
import { startTedMock, type TedMock } from '../providers/mocks/ted-bank';
import { pixPaymentById, pixPspAdapter } from '../providers/pix/psp-adapter';
import { tedAdapter } from '../providers/ted/bank-adapter';
import { DispatchUncertain, type RailDispatch } from '../providers/rails/rail';

let pix: PixPspMock;
let ted: TedMock;
beforeAll(async () => {
  pix = await startPixPspMock();
  ted = await startTedMock();
});
afterAll(async () => {
  await pix.stop();
  await ted.stop();
});

const pixRequest = (reference: string, extra: Partial<RailDispatch> = {}): RailDispatch => ({
  idempotencyKey: `key-${reference}`,
  reference,
  amountMinor: 1050n,
  description: 'test',
  pix: { key: '+5511987654321', txid: null },
  notificationUrl: null,
  ...extra,
});
const tedRequest = (reference: string): RailDispatch => ({
  idempotencyKey: `key-${reference}`,
  reference,
  amountMinor: 250000n,
  description: 'withdrawal',
  notificationUrl: null,
  ted: {
    sourceAccount: 'sub_1',
    ispb: '60701190',
    branch: '1234',
    account: '00098765',
    taxId: '52998224725',
    name: 'Maria',
    accountType: 'CACC',
  },
});

describe('Pix PSP adapter', () => {
  const psp = () => pixPspAdapter({ baseUrl: pix.url, timeoutMs: 400 });

  it('looks keys up in DICT and reports a removed key as absent', async () => {
    expect(await psp().lookupKey('+5511987654321')).toMatchObject({
      keyType: 'PHONE',
      ownerName: expect.any(String),
      ispb: '60701190',
    });
    pix.removeKey('gone@example.com');
    expect(await psp().lookupKey('gone@example.com')).toBeNull();
  });

  it('pays once per idempotency key, however often it is sent', async () => {
    const first = await psp().dispatch(pixRequest('a1'));
    const again = await psp().dispatch(pixRequest('a1'));
    expect(first).toMatchObject({
      status: 'settled',
      endToEndId: expect.stringMatching(/^E\d{8}\d{12}[A-Z0-9]{11}$/),
    });
    expect(again).toEqual(first);
    expect(pix.payments().filter((p) => p.reference === 'a1')).toHaveLength(1);
    expect(pix.payments().find((p) => p.reference === 'a1')?.amount).toBe('10.50');
  });

  it('normalizes a refusal to psp_refused with the PSP reason', async () => {
    pix.script('a2', { outcome: 'refuse', reason: 'AC03' });
    expect(await psp().dispatch(pixRequest('a2'))).toMatchObject({
      status: 'refused',
      code: 'psp_refused',
      reason: 'AC03',
    });
    expect(await psp().status('key-a2')).toBeNull();
  });

  it('reports a timeout as uncertain, and the status query finds the payment that was made', async () => {
    pix.script('a3', { outcome: 'timeout' });
    await expect(psp().dispatch(pixRequest('a3'))).rejects.toBeInstanceOf(DispatchUncertain);
    expect(await psp().status('key-a3')).toMatchObject({ status: 'settled' });
  });

  it('reports a lost request as uncertain, and the status query says nothing was received', async () => {
    pix.script('a4', { outcome: 'lost' });
    await expect(psp().dispatch(pixRequest('a4'))).rejects.toBeInstanceOf(DispatchUncertain);
    expect(await psp().status('key-a4')).toBeNull();
  });

  it('waits for a late answer within its deadline', async () => {
    pix.script('a5', { outcome: 'late', delayMs: 150 });
    expect(await psp().dispatch(pixRequest('a5'))).toMatchObject({ status: 'settled' });
  });

  it('treats a 503 as uncertain and succeeds on the next send', async () => {
    pix.script('a6', { outcome: 'fail', times: 1 });
    await expect(psp().dispatch(pixRequest('a6'))).rejects.toBeInstanceOf(DispatchUncertain);
    expect(await psp().dispatch(pixRequest('a6'))).toMatchObject({ status: 'settled' });
  });

  it('posts a settlement webhook for a payment that settles later', async () => {
    const notices: unknown[] = [];
    const receiver = createServer((req, res) => {
      let data = '';
      req.on('data', (c) => (data += c));
      req.on('end', () => {
        notices.push(JSON.parse(data));
        res.end('{}');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    try {
      pix.script('a7', { outcome: 'succeed', settle: 'webhook', settleDelayMs: 20 });
      const outcome = await psp().dispatch(pixRequest('a7', { notificationUrl: url }));
      expect(outcome).toMatchObject({ status: 'processing' });
      await new Promise((r) => setTimeout(r, 150));
      expect(notices).toEqual([
        expect.objectContaining({ type: 'pix.payment.settled', idempotency_key: 'key-a7' }),
      ]);
      const id = (outcome as { providerPaymentId: string }).providerPaymentId;
      expect(await pixPaymentById({ baseUrl: pix.url, timeoutMs: 400 }, id)).toMatchObject({
        idempotencyKey: 'key-a7',
        outcome: { status: 'settled' },
      });
    } finally {
      receiver.close();
    }
  });
});

describe('TED adapter', () => {
  const bank = () => tedAdapter({ baseUrl: ted.url, timeoutMs: 400 });

  it('sends once per idempotency key from the consumer sub-account', async () => {
    const first = await bank().dispatch(tedRequest('t1'));
    expect(first).toMatchObject({ status: 'settled' });
    expect(await bank().dispatch(tedRequest('t1'))).toEqual(first);
    expect(ted.transfers().filter((t) => t.reference === 't1')).toEqual([
      expect.objectContaining({ source_account: 'sub_1', amount_minor: '250000' }),
    ]);
  });

  it('refuses, times out and recovers like the Pix PSP', async () => {
    ted.script('t2', { outcome: 'refuse' });
    expect(await bank().dispatch(tedRequest('t2'))).toMatchObject({ status: 'refused', code: 'psp_refused' });
    ted.script('t3', { outcome: 'timeout' });
    await expect(bank().dispatch(tedRequest('t3'))).rejects.toBeInstanceOf(DispatchUncertain);
    expect(await bank().status('key-t3')).toMatchObject({ status: 'settled' });
  });
});
