// The pure rules behind mandates: which transitions a state allows, what an amendment may change, and
// how the wallet roll-up adds mandates up per currency.
import { rollUp, type RollupMandate } from '../domain/consumers/wallet-rollup';
import type { MandateDocument } from '../domain/mandates/document';
import { planAmendment, transitionRefusal, type AmendmentPatch } from '../domain/mandates/transitions';

describe('transitions', () => {
  it.each([
    ['active', false, 'revoke', null],
    ['active', false, 'amend', null],
    ['active', true, 'revoke', 'mandate_already_expired'],
    ['active', true, 'amend', 'mandate_already_expired'],
    ['revoked', false, 'revoke', 'mandate_already_revoked'],
    ['revoked', false, 'amend', 'mandate_already_revoked'],
    ['revoked', true, 'revoke', 'mandate_already_revoked'],
    ['expired', true, 'revoke', 'mandate_already_expired'],
    ['expired', false, 'amend', 'mandate_already_expired'],
  ] as const)('%s (lapsed: %s) + %s → %s', (status, lapsed, action, code) => {
    const refusal = transitionRefusal(status, lapsed, action);
    expect(refusal?.code ?? null).toBe(code);
    if (code === 'mandate_already_expired') expect(refusal?.status).toBe(410);
    if (code === 'mandate_already_revoked') expect(refusal?.status).toBe(409);
  });
});

const now = new Date('2026-06-01T00:00:00.000Z');
const base: MandateDocument = {
  version: 1,
  id: 'mnd_x',
  revision: 1,
  nonce: '0'.repeat(32),
  scope: 'o/p/c',
  agent_id: 'a',
  consumer_id: 'c',
  funding_source_id: 'f',
  rail: 'pix-consent',
  purpose: 'p',
  currency: 'BRL',
  cap_minor: '1000',
  per_tx_cap_minor: '500',
  merchant_allowlist: ['a.example', 'b.example'],
  withdrawal_allowlist: ['ted:1'],
  dda_allowlist: ['52998224725', '11144477735'],
  issued_at: '2026-05-01T00:00:00.000Z',
  expires_at: '2026-07-01T00:00:00.000Z',
};

describe('amendments', () => {
  it.each<[string, AmendmentPatch, Partial<MandateDocument>]>([
    ['a lower cap', { cap_minor: 800 }, { cap_minor: '800' }],
    [
      'a cap under the per-transaction cap, which narrows that too',
      { cap_minor: 300 },
      { cap_minor: '300', per_tx_cap_minor: '300' },
    ],
    ['a lower per-transaction cap', { per_tx_cap_minor: 100 }, { per_tx_cap_minor: '100' }],
    ['an earlier expiry', { expires_at: '2026-06-15T00:00:00Z' }, { expires_at: '2026-06-15T00:00:00.000Z' }],
    ['fewer payees', { merchant_allowlist: ['b.example'] }, { merchant_allowlist: ['b.example'] }],
    ['no cash-out', { withdrawal_allowlist: [] }, { withdrawal_allowlist: undefined }],
    ['fewer DDA documents', { dda_allowlist: ['11144477735'] }, { dda_allowlist: ['11144477735'] }],
  ])('accepts %s and bumps the revision with a new nonce', (_name, patch, expected) => {
    const { document } = planAmendment(base, patch, { spentMinor: 0n, now });
    expect(document).toMatchObject({ ...expected, revision: 2 });
    expect(document.nonce).not.toBe(base.nonce);
    for (const [key, value] of Object.entries(expected))
      if (value === undefined) expect(document[key as keyof MandateDocument]).toBeUndefined();
  });

  it('narrows a wildcard payee list to named payees', () => {
    const { document } = planAmendment(
      { ...base, merchant_allowlist: ['*'] },
      { merchant_allowlist: ['a.example'] },
      { spentMinor: 0n, now },
    );
    expect(document.merchant_allowlist).toEqual(['a.example']);
  });

  it.each<[string, AmendmentPatch, string, string]>([
    ['a higher cap', { cap_minor: 1001 }, 'invalid_transition', 'widens'],
    ['a higher per-transaction cap', { per_tx_cap_minor: 501 }, 'invalid_transition', 'widens'],
    ['a later expiry', { expires_at: '2026-08-01T00:00:00Z' }, 'invalid_transition', 'widens'],
    ['a new payee', { merchant_allowlist: ['c.example'] }, 'invalid_transition', 'widens'],
    ['the wildcard', { merchant_allowlist: ['*'] }, 'invalid_transition', 'widens'],
    [
      'a new cash-out destination',
      { withdrawal_allowlist: ['ted:1', 'ted:2'] },
      'invalid_transition',
      'widens',
    ],
    ['a new DDA document', { dda_allowlist: ['11222333000181'] }, 'invalid_transition', 'widens'],
    ['a cap below what was spent', { cap_minor: 100 }, 'invalid_transition', 'below_spent'],
    [
      'the same values',
      { cap_minor: 1000, merchant_allowlist: ['b.example', 'a.example'] },
      'invalid_transition',
      'no_change',
    ],
  ])('refuses %s', (_name, patch, code, reason) => {
    try {
      planAmendment(base, patch, { spentMinor: 200n, now });
      throw new Error('expected a refusal');
    } catch (error) {
      expect((error as { code: string }).code).toBe(code);
      expect((error as { details: { reason: string } }).details.reason).toBe(reason);
    }
  });

  it('refuses an expiry in the past with expires_at_in_past', () => {
    expect(() =>
      planAmendment(base, { expires_at: '2026-05-31T00:00:00Z' }, { spentMinor: 0n, now }),
    ).toThrow(expect.objectContaining({ code: 'expires_at_in_past', status: 400 }));
  });
});

describe('wallet roll-up', () => {
  const mandate = (
    id: string,
    currency: string,
    cap: bigint,
    slots: RollupMandate['slots'] = [],
  ): RollupMandate => ({ id, currency, capMinor: cap, fundingSourceId: `fs_${id}`, slots });

  it.each<[string, RollupMandate[], Array<[string, string, bigint]>, Array<Record<string, unknown>>]>([
    ['no mandates', [], [], []],
    [
      'one mandate, nothing spent',
      [mandate('m1', 'BRL', 1000n)],
      [],
      [
        {
          currency: 'BRL',
          authorized_minor: 1000n,
          spent_minor: 0n,
          available_minor: 1000n,
          overspent: false,
          mandate_ids: ['m1'],
          funding_source_ids: ['fs_m1'],
        },
      ],
    ],
    [
      'two mandates in one currency',
      [mandate('m1', 'BRL', 1000n), mandate('m2', 'BRL', 500n)],
      [['m1', 'BRL', 300n]],
      [
        {
          currency: 'BRL',
          authorized_minor: 1500n,
          spent_minor: 300n,
          available_minor: 1200n,
          overspent: false,
          mandate_ids: ['m1', 'm2'],
        },
      ],
    ],
    [
      'a slot in another currency',
      [
        mandate('m1', 'BRL', 1000n, [
          { currency: 'USDC', capMinor: 70n },
          { currency: 'BRL', capMinor: 10n },
        ]),
      ],
      [['m1', 'USDC', 20n]],
      [
        { currency: 'BRL', authorized_minor: 1000n, spent_minor: 0n },
        {
          currency: 'USDC',
          authorized_minor: 70n,
          spent_minor: 20n,
          available_minor: 50n,
          mandate_ids: ['m1'],
        },
      ],
    ],
    [
      'an overspent currency',
      [mandate('m1', 'BRL', 100n)],
      [['m1', 'BRL', 150n]],
      [{ currency: 'BRL', spent_minor: 150n, available_minor: 0n, overspent: true }],
    ],
    [
      'amounts beyond 2^53',
      [mandate('m1', 'BRL', 9_007_199_254_740_993n), mandate('m2', 'BRL', 9_007_199_254_740_993n)],
      [['m1', 'BRL', 1n]],
      [
        {
          currency: 'BRL',
          authorized_minor: 18_014_398_509_481_986n,
          available_minor: 18_014_398_509_481_985n,
        },
      ],
    ],
  ])('%s', (_name, mandates, spends, expected) => {
    const spent = new Map<string, Map<string, bigint>>();
    for (const [id, currency, amount] of spends)
      spent.set(id, new Map([...(spent.get(id) ?? new Map()), [currency, amount]]));
    const rows = rollUp(mandates, spent);
    expect(rows).toHaveLength(expected.length);
    rows.forEach((row, i) => expect(row).toMatchObject(expected[i]));
  });
});

describe('exact JSON integers', () => {
  it('writes bigints digit for digit as JSON numbers, leaving strings that look alike untouched', async () => {
    const { jsonWithIntegers } = await import('../api/presenters/json-integers');
    expect(jsonWithIntegers({ a: 2n ** 64n, b: -5n, c: '12', d: [1n] })).toBe(
      '{"a":18446744073709551616,"b":-5,"c":"12","d":[1]}',
    );
    expect(jsonWithIntegers({ s: '__int_abc__5' })).toBe('{"s":"__int_abc__5"}');
  });
});
