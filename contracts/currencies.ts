// The wallet currencies, each with its minor-unit exponent and the rails that can fund it: the one table
// every amount conversion and funding check reads.

export const CURRENCIES = {
  BRL: { exponent: 2, rails: ['pix', 'ted', 'boleto'] },
  USD: { exponent: 2, rails: ['ach', 'wire', 'card'] },
  MXN: { exponent: 2, rails: ['spei'] },
  COP: { exponent: 2, rails: ['pse', 'bre-b'] },
  ARS: { exponent: 2, rails: ['cvu'] },
  USDC: { exponent: 6, rails: ['x402', 'onchain'] },
  BRLA: { exponent: 18, rails: ['onchain'] },
} as const satisfies Record<string, { exponent: number; rails: readonly string[] }>;

export type Currency = keyof typeof CURRENCIES;
export const CURRENCY_CODES = Object.keys(CURRENCIES) as Currency[];

export function isCurrency(value: string): value is Currency {
  return Object.prototype.hasOwnProperty.call(CURRENCIES, value);
}

export function railCarries(rail: string, currency: Currency): boolean {
  return (CURRENCIES[currency].rails as readonly string[]).includes(rail);
}

/**
 * Converts a major-unit amount (as the JSON number the client sent) to integer minor units without
 * floating-point arithmetic: the number's shortest decimal spelling is scaled as text. Returns null
 * when the amount has more decimals than the currency has minor units, or is not positive.
 */
export function toMinorUnits(amount: number, currency: Currency): bigint | null {
  if (!Number.isFinite(amount) || amount <= 0) return null;
  const exponent = CURRENCIES[currency].exponent;
  const text = amount.toString();
  const match = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(text);
  if (!match) return null;
  const [, whole, fraction = '', exp = '0'] = match;
  let digits = whole + fraction;
  let scale = fraction.length - Number(exp); // value = digits × 10^-scale
  if (scale < 0) {
    digits += '0'.repeat(-scale);
    scale = 0;
  }
  if (scale > exponent) {
    const dropped = digits.slice(digits.length - (scale - exponent));
    if (/[^0]/.test(dropped)) return null;
    digits = digits.slice(0, digits.length - (scale - exponent));
    scale = exponent;
  }
  const minor = BigInt(digits || '0') * 10n ** BigInt(exponent - scale);
  return minor > 0n ? minor : null;
}
