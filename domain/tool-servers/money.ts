// The money rules of tenant tool servers as pure functions: a price written as a decimal string in the
// server's currency becomes bigint minor units (never through a float), and a paid call's price is split
// into the tenant's share and the platform fee so that the two always sum to the price: the fee is rounded
// down to a whole minor unit and the tenant gets the rest, so no unit is created or lost.
import { CURRENCIES, type Currency } from '../../contracts/currencies';

/** The largest amount a ledger entry holds: PostgreSQL's bigint. */
export const MAX_MINOR = 9_223_372_036_854_775_807n;

/** `"12.34"` in BRL → 1234n; null when malformed, negative, over the currency's decimals or too large. */
export function priceToMinor(price: string, currency: Currency): bigint | null {
  const match = /^(\d{1,30})(?:\.(\d{1,30}))?$/.exec(price);
  if (!match) return null;
  const exponent = CURRENCIES[currency].exponent;
  const [, whole, fraction = ''] = match;
  if (fraction.length > exponent && /[^0]/.test(fraction.slice(exponent))) return null;
  const minor =
    BigInt(whole) * 10n ** BigInt(exponent) +
    BigInt(fraction.slice(0, exponent).padEnd(exponent, '0') || '0');
  return minor <= MAX_MINOR ? minor : null;
}

/** 1234n in BRL → `"12.34"`: how a price is shown back. */
export function minorToPrice(minor: bigint, currency: Currency): string {
  const exponent: number = CURRENCIES[currency].exponent;
  const digits = minor.toString().padStart(exponent + 1, '0');
  const whole = digits.slice(0, -exponent);
  const fraction = digits.slice(-exponent).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

export interface PriceSplit {
  tenantShareMinor: bigint;
  feeMinor: bigint;
}

/** fee = ⌊price × bps / 10000⌋, tenant = price − fee: both non-negative, summing exactly to the price. */
export function splitPrice(priceMinor: bigint, platformFeeBps: number): PriceSplit {
  if (priceMinor < 0n) throw new RangeError('price must not be negative');
  if (!Number.isInteger(platformFeeBps) || platformFeeBps < 0 || platformFeeBps > 10_000)
    throw new RangeError('platform_fee_bps must be an integer in 0..10000');
  const feeMinor = (priceMinor * BigInt(platformFeeBps)) / 10_000n;
  return { tenantShareMinor: priceMinor - feeMinor, feeMinor };
}
