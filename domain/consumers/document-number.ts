// Brazilian tax documents: CPF (11 digits, people) and CNPJ (14 digits, companies), each ending in two
// mod-11 check digits. Used for dda_allowlist entries and for a consumer's verified document.

const onlyDigits = (value: string): boolean => /^[0-9]+$/.test(value);
const allSame = (value: string): boolean => /^(\d)\1*$/.test(value);

function checkDigit(digits: number[], weights: number[]): number {
  const sum = digits.reduce((total, digit, index) => total + digit * weights[index], 0);
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

/** True for an 11-digit CPF whose check digits match (repeated-digit numbers are refused, as Receita does). */
export function isCpf(value: string): boolean {
  if (value.length !== 11 || !onlyDigits(value) || allSame(value)) return false;
  const digits = [...value].map(Number);
  const first = checkDigit(digits.slice(0, 9), [10, 9, 8, 7, 6, 5, 4, 3, 2]);
  const second = checkDigit(digits.slice(0, 10), [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
  return digits[9] === first && digits[10] === second;
}

/** True for a 14-digit CNPJ whose check digits match. */
export function isCnpj(value: string): boolean {
  if (value.length !== 14 || !onlyDigits(value) || allSame(value)) return false;
  const digits = [...value].map(Number);
  const first = checkDigit(digits.slice(0, 12), [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  const second = checkDigit(digits.slice(0, 13), [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  return digits[12] === first && digits[13] === second;
}

export type DocumentKind = 'cpf' | 'cnpj';

export function documentKind(value: string): DocumentKind | null {
  if (isCpf(value)) return 'cpf';
  if (isCnpj(value)) return 'cnpj';
  return null;
}

/** Appends the two check digits to a 9-digit CPF base or a 12-digit CNPJ base (for fixtures and tooling). */
export function withCheckDigits(base: string): string {
  const digits = [...base].map(Number);
  if (base.length === 9) {
    const first = checkDigit(digits, [10, 9, 8, 7, 6, 5, 4, 3, 2]);
    const second = checkDigit([...digits, first], [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
    return `${base}${first}${second}`;
  }
  if (base.length === 12) {
    const first = checkDigit(digits, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
    const second = checkDigit([...digits, first], [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
    return `${base}${first}${second}`;
  }
  throw new Error('a CPF base has 9 digits and a CNPJ base 12');
}
