// The linha digitável check: published lines of real boletos (bank and collection layouts, with and
// without separators) verify; the same lines with one digit changed, or the wrong length, do not.
import { isValidLinhaDigitavel, normalizeLinhaDigitavel } from '../domain/dda/linha-digitavel';
import { amountMinorOf, isCalendarDate } from '../domain/dda/boletos';

const GOOD = [
  // Bank boletos: 47 digits.
  '23793.38128 60007.827136 95000.063305 9 75520000370000',
  '03399.63290 64000.000006 00125.201020 4 56140000017832',
  '42297.11504 00001.954411 60020.034520 2 68610000054659',
  '03399.16140 07000.001912 81556.001014 4 11370000038936',
  // Collection boletos: 48 digits, mod 10 (third digit 6) and mod 11 (third digit 8).
  '836200000005 667800481000 180975657313 001589636081',
  '85890000460-9 52460179160-5 60759305086-5 83148300001-0',
  '848200000000 599004020007 002868026006 073377503180',
  '83640000001-1 33120138000-2 81288462711-6 08013618155-1',
];

describe('linha digitável', () => {
  it.each(GOOD)('accepts %s', (line) => {
    expect(isValidLinhaDigitavel(line)).toBe(true);
  });

  it.each(GOOD)('refuses %s with any one digit changed', (line) => {
    const digits = normalizeLinhaDigitavel(line);
    for (let index = 0; index < digits.length; index++) {
      // The first digit decides the layout (8 is collection); changing it only changes the kind of refusal.
      const changed = `${digits.slice(0, index)}${(Number(digits[index]) + 1) % 10}${digits.slice(index + 1)}`;
      expect([index, isValidLinhaDigitavel(changed)]).toEqual([index, false]);
    }
  });

  it.each([
    ['the amount digit of a known line', '03399632906400000000600125201020456140000017831'],
    ['a collection line starting 5', '536200000005667800481000180975657313001589636081'],
    ['too short', '2379338128600078271369500006330597552000037000'],
    ['letters', '23793.38128 60007.827136 95000.06330A 9 75520000370000'],
    ['empty', ''],
  ])('refuses %s', (_what, line) => {
    expect(isValidLinhaDigitavel(line)).toBe(false);
  });

  it('reads provider amounts and calendar dates exactly', () => {
    expect(amountMinorOf('370.00')).toBe('37000');
    expect(amountMinorOf('0.5')).toBe('50');
    expect(amountMinorOf('12')).toBe('1200');
    expect(amountMinorOf('1,00')).toBeNull();
    expect(isCalendarDate('2026-02-28')).toBe(true);
    expect(isCalendarDate('2026-02-30')).toBe(false);
    expect(isCalendarDate('2026-2-3')).toBe(false);
  });
});
