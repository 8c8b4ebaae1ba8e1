// Table-driven tests of the pure ledger rules and the currency table.
import type { EntryKind } from '../contracts/ledger-entry-kinds';
import { effectOf, isRefusal, type OpenHold } from '../domain/ledger/effects';
import { toMinorUnits, railCarries, CURRENCIES, type Currency } from '../contracts/currencies';
import { transferRefusal } from '../domain/wallets/transfers';

const slot = { balance: 1000n, available: 600n };
const open: OpenHold = { id: 'hld_1', amount: 300n, status: 'open', toString: () => 'open 300' } as OpenHold;
const done: OpenHold = {
  id: 'hld_2',
  amount: 300n,
  status: 'debited',
  toString: () => 'debited 300',
} as OpenHold;

describe('effectOf', () => {
  it.each<[EntryKind, bigint, OpenHold | null, string | [bigint, bigint, bigint, bigint]]>([
    ['fund', 50n, null, [50n, 50n, 50n, 0n]],
    ['reconcile', 50n, null, [50n, 50n, 50n, 0n]],
    ['reverse', 50n, null, [50n, 50n, 50n, 0n]],
    ['fee', 50n, null, [-50n, -50n, -50n, 0n]],
    ['fee', 601n, null, 'balance_constraint_violation'],
    ['debit', 600n, null, [-600n, -600n, -600n, 0n]],
    ['debit', 601n, null, 'balance_constraint_violation'],
    ['hold', 600n, null, [-600n, 0n, -600n, 0n]],
    ['hold', 601n, null, 'balance_constraint_violation'],
    ['hold', 10n, open, 'ledger_conflict'],
    ['release', 300n, open, [300n, 0n, 300n, 0n]],
    ['release', 299n, open, 'ledger_conflict'],
    ['release', 300n, null, 'ledger_conflict'],
    ['release', 300n, done, 'ledger_conflict'],
    ['debit', 300n, open, [-300n, -300n, 0n, 0n]],
    ['debit', 120n, open, [-120n, -120n, 0n, 180n]],
    ['debit', 301n, open, 'balance_constraint_violation'],
    ['debit', 100n, done, 'ledger_conflict'],
  ])('%s of %s against hold %s', (kind, amount, hold, expected) => {
    const effect = effectOf(kind, amount, slot, hold);
    if (typeof expected === 'string') {
      expect(isRefusal(effect) && effect.code).toBe(expected);
      return;
    }
    expect(isRefusal(effect)).toBe(false);
    if (isRefusal(effect)) return;
    expect([effect.amount, effect.balanceDelta, effect.availableDelta, effect.releaseRemainder]).toEqual(
      expected,
    );
  });

  it('never lets available go below zero nor above the balance for any accepted effect', () => {
    for (const kind of ['fund', 'fee', 'debit', 'hold', 'release', 'reconcile', 'reverse'] as EntryKind[]) {
      for (const amount of [1n, 299n, 300n, 600n, 601n, 5000n]) {
        for (const hold of [null, open]) {
          const effect = effectOf(kind, amount, slot, hold);
          if (isRefusal(effect)) continue;
          const available = slot.available + effect.availableDelta + effect.releaseRemainder;
          const balance = slot.balance + effect.balanceDelta;
          expect(available >= 0n).toBe(true);
          expect(available <= balance).toBe(true);
        }
      }
    }
  });
});

describe('toMinorUnits', () => {
  it.each<[number, Currency, bigint | null]>([
    [12.34, 'BRL', 1234n],
    [0.1, 'USD', 10n],
    [0.29, 'USD', 29n],
    [1, 'USDC', 1_000_000n],
    [0.000001, 'USDC', 1n],
    [1.005, 'BRL', null],
    [0, 'BRL', null],
    [-1, 'BRL', null],
    [1e21, 'USD', 100_000_000_000_000_000_000_000n],
    [0.5, 'BRLA', 500_000_000_000_000_000n],
    [1e-7, 'USDC', null],
    [Number.NaN, 'USD', null],
  ])('%s %s is %s minor units', (amount, currency, expected) => {
    expect(toMinorUnits(amount, currency)).toBe(expected);
  });

  it('has an exponent and at least one rail for each of the seven currencies', () => {
    expect(Object.keys(CURRENCIES).sort()).toEqual(['ARS', 'BRL', 'BRLA', 'COP', 'MXN', 'USD', 'USDC']);
    expect(railCarries('pix', 'BRL')).toBe(true);
    expect(railCarries('pix', 'USD')).toBe(false);
  });
});

describe('transferRefusal', () => {
  it.each([
    ['w1', 'w1', 'BRL', 'BRL', 'same_slot_transfer'],
    ['w1', 'w2', 'BRL', 'USD', 'unsupported_transfer_route'],
    ['w1', 'w1', 'BRL', 'USD', 'unsupported_transfer_route'],
    ['w1', 'w2', 'BRL', 'BRL', null],
  ])('%s/%s → %s/%s: %s', (fromWalletId, toWalletId, currency, toCurrency, code) => {
    expect(transferRefusal({ fromWalletId, toWalletId, currency, toCurrency })?.code ?? null).toBe(code);
  });
});
