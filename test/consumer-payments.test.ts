// Consumer payments through HTTP: every refusal the route makes before money can move (schema, approval
// claim, quote timestamp, TED attempt_id and payee, carrier_* codes for bad BR Codes, Pix keys,
// session_not_found), tenant isolation of sessions, refusals of a mandate that does not verify (stored
// for replays, nothing reserved), and the attempt workflow's search attributes.
import { sql } from 'slonik';
import { z } from 'zod';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { brCode, insertSession, pixBody, tedBody } from './support/spend-factory';

let gw: Gateway;
let tenant: Tenant;
let other: Tenant;
beforeAll(async () => {
  gw = await startGateway();
  tenant = await gw.createTenant();
  other = await gw.createTenant();
});
afterAll(async () => {
  await gw?.stop();
});

const execute = (body: unknown, key = tenant.key) =>
  gw.request('POST', '/v1/consumer-payments/execute', { key, body });
const attempts = async (orgId: string) =>
  gw.db.oneFirst(
    sql.type(
      z.object({ n: z.number() }),
    )`SELECT count(*)::int AS n FROM consumer_spend_attempts WHERE org_id = ${orgId}`,
  );

describe('refusals before anything starts', () => {
  it.each([
    ['no signature', { signature: undefined }, 400, 'invalid_body'],
    ['a short signature', { signature: 'abc' }, 400, 'invalid_body'],
    ['a fractional amount', { amount_minor: 10.5 }, 400, 'invalid_body'],
    ['a zero amount', { amount_minor: 0 }, 400, 'invalid_body'],
    ['an unknown field', { tip: 1 }, 400, 'invalid_body'],
    [
      'a malformed approval hash',
      { approval: { items_hash: 'xyz', batch_hash: 'b'.repeat(64) } },
      400,
      'invalid_approval_hash',
    ],
    [
      'a quote time without offset',
      { quote: { seller: 's', at: '2025-01-01T10:00:00' } },
      400,
      'invalid_receipt_timestamp',
    ],
    [
      'a quote time in year 0000',
      { quote: { seller: 's', at: '0000-12-31T23:00:00Z' } },
      400,
      'invalid_receipt_timestamp',
    ],
    [
      'a quote time on 30 February',
      { quote: { seller: 's', at: '2024-02-30T10:00:00Z' } },
      400,
      'invalid_receipt_timestamp',
    ],
    ['a payee that is no Pix key', { payee: 'somebody' }, 422, 'invalid_pix_key'],
    ['a CPF key with bad check digits', { payee: '52998224724' }, 422, 'invalid_pix_key'],
    [
      'a BR Code with a checksum typo',
      { payee: `${brCode().slice(0, -4)}0000` },
      422,
      'carrier_crc_mismatch',
    ],
    ['a truncated BR Code', { payee: brCode().slice(0, 60) }, 422, 'carrier_malformed'],
    ['a BR Code fixing another amount', { payee: brCode(999n) }, 422, 'carrier_amount_mismatch'],
    ['a mandate without id', { mandate: { nonce: 'x' } }, 400, 'invalid_body'],
    ['no mandate at all', { mandate: undefined }, 400, 'invalid_body'],
  ])('refuses %s (%s %s) and records nothing', async (_name, over, status, code) => {
    const before = await attempts(tenant.orgId);
    const result = await execute(pixBody(over));
    expect(result.status).toBe(status);
    expect(result.body.error.code).toBe(code);
    expect(result.body.request_id).toBe(result.headers.get('x-request-id'));
    expect(await attempts(tenant.orgId)).toBe(before);
  });

  it('answers a malformed approval hash beside another bad field with that field alone, as invalid_body', async () => {
    const result = await execute(
      pixBody({ signature: 'abc', approval: { items_hash: 'xyz', batch_hash: 'b'.repeat(64) } }),
    );
    expect(result.status).toBe(400);
    expect(result.body.error.code).toBe('invalid_body');
    const paths = result.body.error.details.issues.map((issue: { path: string }) => issue.path);
    expect(paths).toContain('/signature');
    expect(paths).not.toContain('/approval/items_hash');
  });

  it.each([
    ['without attempt_id', { attempt_id: undefined }, 'attempt_id_required'],
    [
      'with a lower-case account',
      { payee: 'ted:60701190:1234:0009876a', ted: { bank: '60701190', branch: '1234', account: '0009876a' } },
      'invalid_ted_destination',
    ],
    [
      'with a payee that is not its destination',
      { payee: 'ted:60701190:1234:00098766' },
      'invalid_ted_payee',
    ],
    ['with punctuation in the payee', { payee: 'ted:60701190:1234:0009876-5' }, 'invalid_ted_payee'],
  ])('refuses a TED spend %s', async (_name, over, code) => {
    const result = await execute(tedBody(over));
    expect(result.status).toBe(400);
    expect(result.body.error.code).toBe(code);
  });

  it('accepts whitespace in a TED payee and a BR Code with a trailing newline as far as the mandate step', async () => {
    for (const body of [
      tedBody({ payee: ' ted:60701190 :1234: 00098765 ' }),
      pixBody({ payee: `${brCode(1050n)}\n` }),
    ]) {
      const result = await execute(body);
      expect(result.body.audit.at(-1)).toMatchObject({ step: 'mandate', status: 'fail' });
    }
  });

  it('refuses a session_id that names no session of this project', async () => {
    const foreign = await insertSession(gw, other);
    for (const sessionId of ['ses_missing', foreign]) {
      const result = await execute(pixBody({ session_id: sessionId }));
      expect(result.status).toBe(422);
      expect(result.body.error).toMatchObject({
        code: 'session_not_found',
        details: { session_id: sessionId },
      });
    }
  });
});

describe('a mandate this project never signed', () => {
  it('is refused after the route checks pass, with the audit so far, reserving nothing, and the refusal is replayed', async () => {
    const sessionId = await insertSession(gw, tenant);
    const body = pixBody({ session_id: sessionId, attempt_id: 'att-unknown-mandate' });
    const result = await execute(body);
    expect(result.status).toBe(404);
    expect(result.body).toMatchObject({
      error: { code: 'mandate_not_found' },
      attempt_id: 'att-unknown-mandate',
      idempotent_replay: false,
    });
    expect(result.body.audit.map((s: { step: string; status: string }) => `${s.step}:${s.status}`)).toEqual([
      'payee:pass',
      'session:pass',
      'dict:pass',
      'mandate:fail',
    ]);
    const held = await gw.db.oneFirst(
      sql.type(
        z.object({ n: z.number() }),
      )`SELECT count(*)::int AS n FROM mandate_cap_reservations WHERE org_id = ${tenant.orgId}`,
    );
    expect(held).toBe(0);
    const again = await execute(body);
    expect(again.body).toEqual({ ...result.body, idempotent_replay: true });
  });

  it('tags the attempt workflow with its search attributes', async () => {
    await execute(tedBody({ attempt_id: 'att-tagged' }));
    const description = await gw.env.client.workflow
      .getHandle(`consumer-spend/${tenant.orgId}/att-tagged`)
      .describe();
    expect(description.type).toBe('moneyAttempt');
    const attributes = description.searchAttributes as Record<string, unknown[]>;
    expect(attributes).toMatchObject({
      OrgId: [tenant.orgId],
      ProjectId: [tenant.projectId],
      AttemptId: ['att-tagged'],
      Rail: ['ted'],
      MandateId: ['mdt_presented'],
      AmountMinor: [1050],
    });
  });

  it('answers a spend on a registered mandate of no such id with mandate_not_found', async () => {
    const result = await gw.request('POST', '/v1/consumers/mandates/mdt_x/spend', {
      key: tenant.key,
      body: { ...pixBody(), mandate: undefined },
    });
    expect(result.status).toBe(404);
    expect(result.body.error.code).toBe('mandate_not_found');
  });
});

describe('Pix DICT', () => {
  it('refuses a key DICT does not know with pix_key_not_found and stores the refusal for replays', async () => {
    (gw.mocks.pix_psp as unknown as { removeKey(key: string): void }).removeKey('ghost@example.com');
    const body = pixBody({ payee: 'ghost@example.com', attempt_id: 'att-ghost' });
    const first = await execute(body);
    expect(first.status).toBe(422);
    expect(first.body).toMatchObject({ error: { code: 'pix_key_not_found' }, idempotent_replay: false });
    const again = await execute(body);
    expect(again.status).toBe(422);
    expect(again.body).toEqual({ ...first.body, idempotent_replay: true });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const changed = await execute({ ...body, amount_minor: 1051 });
    expect(changed.status).toBe(409);
    expect(changed.body.error.code).toBe('attempt_id_conflict');
    const elsewhere = await execute(body, other.key);
    expect(elsewhere.status).not.toBe(409); // attempt ids are per organization
  });
});
