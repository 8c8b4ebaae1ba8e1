// How the consent page words money, durations and allowlists for a person.
const DECIMALS: Record<string, number> = { BRL: 2, USD: 2, MXN: 2, COP: 2, ARS: 2, USDC: 6, BRLA: 2 };

/** Minor units as a decimal amount with its currency code, without floating point (`BRL 1,234.56`). */
export function formatMinor(amount: number | bigint | string, currency: string): string {
  const decimals = DECIMALS[currency] ?? 2;
  const digits = BigInt(amount)
    .toString()
    .padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const fraction = decimals > 0 ? `.${digits.slice(-decimals)}` : '';
  return `${currency} ${whole}${fraction}`;
}

export function formatDuration(seconds: number): string {
  const units: Array<[number, string]> = [
    [86_400, 'day'],
    [3_600, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, name] of units) {
    if (seconds >= size && seconds % size === 0) {
      const count = seconds / size;
      return `${count} ${name}${count === 1 ? '' : 's'}`;
    }
  }
  const minutes = Math.round(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

export function formatDocument(value: string): string {
  return value.length === 11
    ? `${value.slice(0, 3)}.${value.slice(3, 6)}.${value.slice(6, 9)}-${value.slice(9)}`
    : `${value.slice(0, 2)}.${value.slice(2, 5)}.${value.slice(5, 8)}/${value.slice(8, 12)}-${value.slice(12)}`;
}
