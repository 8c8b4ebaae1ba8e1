// The linha digitável of a boleto, checked by its check digits before the gateway hands it to anyone who
// might pay it. Two layouts (FEBRABAN): a bank boleto's 47 digits (three fields each ending in a mod-10
// digit, then the barcode's mod-11 digit, the due-date factor and the amount) and a collection
// (arrecadação) boleto's 48 digits (four blocks of 11 digits and a check digit, by mod 10 or mod 11 as the
// third digit says, plus the barcode's general digit at its fourth position).

const digitsOf = (value: string): number[] => [...value].map(Number);

/** Mod 10: weights 2, 1, 2, … from the right; a product's digits are summed. */
export function mod10(digits: string): number {
  let sum = 0;
  digitsOf(digits)
    .reverse()
    .forEach((digit, index) => {
      const product = digit * (index % 2 === 0 ? 2 : 1);
      sum += product > 9 ? product - 9 : product;
    });
  return (10 - (sum % 10)) % 10;
}

function mod11Sum(digits: string): number {
  let sum = 0;
  digitsOf(digits)
    .reverse()
    .forEach((digit, index) => {
      sum += digit * (2 + (index % 8));
    });
  return sum % 11;
}

/** The bank barcode's general digit: 11 − (sum mod 11), with 0, 10 and 11 written as 1. */
export function bankBarcodeDigit(digits43: string): number {
  const dv = 11 - mod11Sum(digits43);
  return dv === 0 || dv === 10 || dv === 11 ? 1 : dv;
}

/** A collection boleto's mod 11: 11 − (sum mod 11), with 10 and 11 written as 0. */
export function collectionMod11(digits: string): number {
  const dv = 11 - mod11Sum(digits);
  return dv >= 10 ? 0 : dv;
}

function isBankLine(line: string): boolean {
  const fields: Array<[number, number]> = [
    [0, 9],
    [10, 20],
    [21, 31],
  ];
  for (const [start, end] of fields) {
    if (mod10(line.slice(start, end)) !== Number(line[end])) return false;
  }
  const barcodeWithoutDigit =
    line.slice(0, 4) + line.slice(33, 47) + line.slice(4, 9) + line.slice(10, 20) + line.slice(21, 31);
  return bankBarcodeDigit(barcodeWithoutDigit) === Number(line[32]);
}

function isCollectionLine(line: string): boolean {
  const identifier = line[2];
  const check =
    identifier === '6' || identifier === '7'
      ? mod10
      : identifier === '8' || identifier === '9'
        ? collectionMod11
        : null;
  if (!check) return false;
  let barcode = '';
  for (let block = 0; block < 4; block++) {
    const body = line.slice(block * 12, block * 12 + 11);
    if (check(body) !== Number(line[block * 12 + 11])) return false;
    barcode += body;
  }
  return check(barcode.slice(0, 3) + barcode.slice(4)) === Number(barcode[3]);
}

/** Strips the usual separators (dots, dashes, spaces); anything else leaves the line invalid. */
export function normalizeLinhaDigitavel(raw: string): string {
  return raw.replace(/[\s.-]/g, '');
}

/** True when the line (with or without separators) is a bank or collection boleto whose check digits all match. */
export function isValidLinhaDigitavel(raw: string): boolean {
  const line = normalizeLinhaDigitavel(raw);
  if (!/^\d+$/.test(line)) return false;
  if (line.length === 47 && line[0] !== '8') return isBankLine(line);
  if (line.length === 48 && line[0] === '8') return isCollectionLine(line);
  return false;
}
