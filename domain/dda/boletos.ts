// The boletos a registered document owes, as the gateway shows them: only lines whose check digits
// verify (a line that fails them cannot be paid, so it is never handed on), amounts in minor units.
import { isValidLinhaDigitavel, normalizeLinhaDigitavel } from './linha-digitavel';

export interface ProviderBoleto {
  digitableLine: string;
  amount: string;
  dueDate: string;
  beneficiaryName: string | null;
  status: string;
}

export interface DdaBoleto {
  linha_digitavel: string;
  status: 'open' | 'paid';
  document: string;
  amount_minor: string | null;
  due_date: string | null;
  beneficiary_name: string | null;
}

/** "123.45" reais → "12345"; null when the provider's amount is not a plain decimal. */
export function amountMinorOf(amount: string): string | null {
  const match = /^(\d{1,15})(?:\.(\d{1,2}))?$/.exec(amount.trim());
  if (!match) return null;
  return (BigInt(match[1]) * 100n + BigInt((match[2] ?? '').padEnd(2, '0'))).toString();
}

/** Calendar-checked YYYY-MM-DD (2026-02-30 is not a date). */
export function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const parsed = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value;
}

export function presentBoletos(document: string, items: ProviderBoleto[]): DdaBoleto[] {
  return items
    .filter((item) => isValidLinhaDigitavel(item.digitableLine))
    .map((item) => ({
      linha_digitavel: normalizeLinhaDigitavel(item.digitableLine),
      status: item.status.toUpperCase() === 'PAID' ? ('paid' as const) : ('open' as const),
      document,
      amount_minor: amountMinorOf(item.amount),
      due_date: isCalendarDate(item.dueDate) ? item.dueDate : null,
      beneficiary_name: item.beneficiaryName,
    }));
}
