// CPF and CNPJ check digits: known documents, every single-digit corruption, and generated numbers.
import { documentKind, isCnpj, isCpf, withCheckDigits } from '../domain/consumers/document-number';
import { forAll } from './support/property';

describe('CPF', () => {
  it.each([
    ['52998224725', true],
    ['11144477735', true],
    ['39053344705', true],
    ['52998224724', false], // last check digit off by one
    ['52998224715', false], // first check digit off by one
    ['11111111111', false], // passes the arithmetic but is a known invalid number
    ['00000000000', false],
    ['5299822472', false], // 10 digits
    ['529982247250', false], // 12 digits
    ['529.982.247-25', false], // punctuation is not stripped here
    ['5299822472a', false],
  ])('%s is %s', (value, valid) => {
    expect(isCpf(value)).toBe(valid);
  });
});

describe('CNPJ', () => {
  it.each([
    ['11222333000181', true],
    ['45723174000110', true],
    ['11444777000161', true],
    ['11222333000180', false],
    ['11222333000191', false],
    ['00000000000000', false],
    ['99999999999999', false],
    ['1122233300018', false],
    ['11.222.333/0001-81', false],
  ])('%s is %s', (value, valid) => {
    expect(isCnpj(value)).toBe(valid);
  });
});

describe('check-digit properties', () => {
  it('accepts every number built with its check digits, as the right kind', () => {
    forAll('generated documents', 500, (random) => {
      const cpfBase = Array.from({ length: 9 }, () => random.int(0, 9)).join('');
      const cnpjBase = Array.from({ length: 12 }, () => random.int(0, 9)).join('');
      const cpf = withCheckDigits(cpfBase);
      const cnpj = withCheckDigits(cnpjBase);
      if (!/^(\d)\1*$/.test(cpf)) expect([cpf, documentKind(cpf)]).toEqual([cpf, 'cpf']);
      if (!/^(\d)\1*$/.test(cnpj)) expect([cnpj, documentKind(cnpj)]).toEqual([cnpj, 'cnpj']);
    });
  });

  it('refuses every corruption of either check digit', () => {
    forAll('check-digit corruption', 300, (random) => {
      const length = random.bool() ? 9 : 12;
      const valid = withCheckDigits(Array.from({ length }, () => random.int(0, 9)).join(''));
      if (/^(\d)\1*$/.test(valid)) return;
      const position = valid.length - random.int(1, 2);
      const replacement = (Number(valid[position]) + random.int(1, 9)) % 10;
      const corrupted = valid.slice(0, position) + replacement + valid.slice(position + 1);
      expect([corrupted, documentKind(corrupted)]).toEqual([corrupted, null]);
    });
  });

  // An independent formulation of the same rule (dv = (10 * sum mod 11) mod 10), compared on arbitrary digit strings.
  const reference = (value: string, firstWeights: number[], secondWeights: number[]) => {
    if (/^(\d)\1*$/.test(value)) return false;
    const d = [...value].map(Number);
    const dv = (weights: number[]) => ((10 * weights.reduce((s, w, i) => s + w * d[i], 0)) % 11) % 10;
    return dv(firstWeights) === d[firstWeights.length] && dv(secondWeights) === d[secondWeights.length];
  };

  it('agrees with an independent formulation on arbitrary 11- and 14-digit strings', () => {
    const cpfWeights = [
      [10, 9, 8, 7, 6, 5, 4, 3, 2],
      [11, 10, 9, 8, 7, 6, 5, 4, 3, 2],
    ];
    const cnpjWeights = [
      [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2],
      [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2],
    ];
    forAll('differential', 2000, (random) => {
      // Half the cases start from a valid number with one base digit changed, so both outcomes are well covered.
      const cpfValid = withCheckDigits(Array.from({ length: 9 }, () => random.int(0, 9)).join(''));
      const cpf = random.bool() ? cpfValid : cpfValid.replace(/^./, String(random.int(0, 9)));
      const cnpjValid = withCheckDigits(Array.from({ length: 12 }, () => random.int(0, 9)).join(''));
      const cnpj = random.bool() ? cnpjValid : cnpjValid.replace(/^./, String(random.int(0, 9)));
      expect([cpf, isCpf(cpf)]).toEqual([cpf, reference(cpf, cpfWeights[0], cpfWeights[1])]);
      expect([cnpj, isCnpj(cnpj)]).toEqual([cnpj, reference(cnpj, cnpjWeights[0], cnpjWeights[1])]);
    });
  });
});
