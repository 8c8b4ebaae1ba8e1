// Table-driven tests of TED payees: the ted:<ispb>:<branch>:<account> form, whitespace normalization,
// and which signed allowlist entries authorize money out.
import { authorizeTedDestination, parseTedPayee, payeeOfDestination } from '../../domain/ted/payee';

describe('TED payee strings', () => {
  it.each([
    ['ted:00000000:0001:123456', 'ted:00000000:0001:123456'],
    [' ted:00000000 : 0001 : 12345X ', 'ted:00000000:0001:12345X'],
    ['ted:60701190:\t1234:00098765\n', 'ted:60701190:1234:00098765'],
  ])('accepts %j as %s', (raw, text) => {
    expect(parseTedPayee(raw)).toMatchObject({ ok: true, text });
  });

  it.each([
    ['TED:00000000:0001:123456'],
    ['ted:0000000:0001:123456'],
    ['ted:00000000:0001:12345-6'],
    ['ted:00000000:0001:12345x'],
    ['ted:00000000:0001'],
    ['ted:00000000:0001:123:4'],
    ['pix:00000000:0001:123456'],
  ])('refuses %j', (raw) => {
    expect(parseTedPayee(raw).ok).toBe(false);
  });

  it('builds the payee a destination object stands for', () => {
    expect(payeeOfDestination({ bank: '60701190', branch: ' 1234', account: '00098765 ' })).toMatchObject({
      ok: true,
      text: 'ted:60701190:1234:00098765',
    });
    expect(payeeOfDestination({ bank: '60701190', branch: '1234', account: '98765-4' }).ok).toBe(false);
  });
});

describe('TED destination authorization', () => {
  const payee = { ispb: '60701190', branch: '1234', account: '00098765' };
  it.each([
    [
      'named in the withdrawal allowlist',
      ['ted:60701190:1234:00098765'],
      ['*'],
      false,
      { ok: true, via: 'withdrawal_allowlist' },
    ],
    [
      'named with spaces',
      ['ted: 60701190:1234:00098765'],
      [],
      false,
      { ok: true, via: 'withdrawal_allowlist' },
    ],
    ['a * in the withdrawal allowlist', ['*'], ['*'], true, { ok: false }],
    ['only a * merchant entry, fallback on', null, ['*'], true, { ok: false }],
    ['explicit merchant entry, fallback off', null, ['ted:60701190:1234:00098765'], false, { ok: false }],
    [
      'explicit merchant entry, fallback on',
      null,
      ['ted:60701190:1234:00098765'],
      true,
      { ok: true, via: 'merchant_allowlist' },
    ],
    ['another account', ['ted:60701190:1234:00098766'], [], true, { ok: false }],
    ['no lists at all', null, [], true, { ok: false }],
  ])('%s', (_name, withdrawal, merchant, fallback, expected) => {
    expect(
      authorizeTedDestination(
        payee,
        { withdrawalAllowlist: withdrawal as string[] | null, merchantAllowlist: merchant as string[] },
        fallback as boolean,
      ),
    ).toEqual(expected);
  });
});
