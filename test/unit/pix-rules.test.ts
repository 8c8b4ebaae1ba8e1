// Table-driven tests of the Pix rules: CRC16-CCITT, BR Code parsing with its carrier_* refusals, DICT key
// classification and payee resolution.
import { crc16Hex } from '../../domain/pix/crc16';
import { amountToMinor, buildBrCode, minorToAmount, parseBrCode } from '../../domain/pix/brcode';
import { writeTlv } from '../../domain/pix/emv-tlv';
import { classifyPixKey } from '../../domain/pix/pix-key';
import { pixAllowlistMatches, resolvePixPayee } from '../../domain/pix/payee';
import { isValidCnpj, isValidCpf } from '../../domain/pix/document-digits';

/** Appends field 63 with the checksum over everything before it, as a bank app does. */
const checksummed = (body: string) => `${body}6304${crc16Hex(`${body}6304`)}`;
const pixAccount = (key: string) => writeTlv('26', writeTlv('00', 'br.gov.bcb.pix') + writeTlv('01', key));
const EVP = '123e4567-e12b-12d1-a456-426655440000';
const base = (over: Partial<Record<string, string | null>> = {}) => {
  const fields: Array<[string, string | null]> = [
    ['00', '01'],
    ['26', null],
    ['52', '0000'],
    ['53', '986'],
    ['54', '10.50'],
    ['58', 'BR'],
    ['59', 'Fulano de Tal'],
    ['60', 'BRASILIA'],
    ['62', writeTlv('05', 'PEDIDO123')],
  ];
  let out = '';
  for (const [id, value] of fields) {
    const v = id in over ? over[id] : value;
    if (id === '26' && !(id in over)) out += pixAccount(EVP);
    else if (v !== null && v !== undefined) out += writeTlv(id, v);
  }
  return out;
};

describe('CRC16-CCITT', () => {
  it.each([
    ['123456789', '29B1'], // the standard check value of CRC-16/CCITT-FALSE
    ['', 'FFFF'],
    ['A', 'B915'],
  ])('checksums %j as %s', (input, expected) => {
    expect(crc16Hex(input)).toBe(expected);
  });

  it('matches the checksum of the central bank manual example code', () => {
    const code =
      '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D';
    expect(crc16Hex(code.slice(0, -4))).toBe('1D3D');
    const parsed = parseBrCode(code);
    expect(parsed).toMatchObject({
      ok: true,
      code: {
        key: { type: 'evp', key: EVP },
        amountMinor: null,
        merchantName: 'Fulano de Tal',
        merchantCity: 'BRASILIA',
        txid: null,
      },
    });
  });
});

describe('BR Code parsing', () => {
  it('reads a static code with amount and txid', () => {
    const parsed = parseBrCode(checksummed(base()));
    expect(parsed).toEqual({
      ok: true,
      code: expect.objectContaining({
        initiation: 'static',
        key: { type: 'evp', key: EVP },
        amountMinor: 1050n,
        txid: 'PEDIDO123',
        mcc: '0000',
      }),
    });
  });

  it('round-trips what buildBrCode writes, trailing newline and all', () => {
    const code = buildBrCode({
      key: 'loja@example.com',
      amountMinor: 123456n,
      merchantName: 'Loja',
      merchantCity: 'SAO PAULO',
      txid: 'ABC1',
    });
    expect(parseBrCode(`${code}\n`)).toMatchObject({
      ok: true,
      code: { key: { type: 'email', key: 'loja@example.com' }, amountMinor: 123456n, txid: 'ABC1' },
    });
  });

  const good = checksummed(base());
  it.each([
    ['too long', 'x'.repeat(513), 'carrier_too_long'],
    ['not TLV', 'hello world', 'carrier_malformed'],
    ['truncated', good.slice(0, 40), 'carrier_malformed'],
    ['no checksum field', base(), 'carrier_crc_missing'],
    ['checksum typo', `${good.slice(0, -1)}${good.endsWith('0') ? '1' : '0'}`, 'carrier_crc_mismatch'],
    ['one changed character', good.replace('Fulano', 'Fulana'), 'carrier_crc_mismatch'],
    ['wrong format indicator', checksummed(base({ '00': '02' })), 'carrier_payload_format'],
    [
      'no Pix template',
      checksummed(base({ '26': writeTlv('00', 'com.example.other') + writeTlv('01', EVP) })),
      'carrier_not_pix',
    ],
    ['no merchant name', checksummed(base({ '59': null })), 'carrier_field_missing'],
    ['no city', checksummed(base({ '60': null })), 'carrier_field_missing'],
    ['US dollars', checksummed(base({ '53': '840' })), 'carrier_currency'],
    ['foreign country', checksummed(base({ '58': 'PT' })), 'carrier_country'],
    ['amount with comma', checksummed(base({ '54': '10,50' })), 'carrier_invalid_amount'],
    ['amount with three decimals', checksummed(base({ '54': '1.505' })), 'carrier_invalid_amount'],
    ['zero amount', checksummed(base({ '54': '0.00' })), 'carrier_invalid_amount'],
    [
      'bad key',
      checksummed(base({ '26': writeTlv('00', 'br.gov.bcb.pix') + writeTlv('01', '12345678900') })),
      'carrier_invalid_key',
    ],
    [
      'dynamic without key',
      checksummed(
        base({ '26': writeTlv('00', 'br.gov.bcb.pix') + writeTlv('25', 'pix.example.com/qr/v2/abc') }),
      ),
      'carrier_dynamic_unsupported',
    ],
    ['repeated field', checksummed(base() + writeTlv('58', 'BR')), 'carrier_duplicate_field'],
  ])('refuses %s with %s', (_name, code, expected) => {
    const parsed = parseBrCode(code);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.code).toBe(expected);
  });

  it.each([
    ['10', 1000n],
    ['10.5', 1050n],
    ['10.50', 1050n],
    ['0.01', 1n],
    ['9999999999.99', 999999999999n],
    ['', null],
    ['.5', null],
    ['1e3', null],
    ['-1', null],
    ['0', null],
  ])('reads amount %j as %s centavos', (text, minor) => {
    expect(amountToMinor(text)).toBe(minor);
  });

  it.each([
    [1n, '0.01'],
    [1050n, '10.50'],
    [100n, '1.00'],
  ])('writes %s centavos as %s', (minor, text) => {
    expect(minorToAmount(minor)).toBe(text);
  });
});

describe('Pix keys', () => {
  it.each([
    ['52998224725', { type: 'cpf', key: '52998224725' }],
    ['529.982.247-25', { type: 'cpf', key: '52998224725' }],
    ['11444777000161', { type: 'cnpj', key: '11444777000161' }],
    ['11.444.777/0001-61', { type: 'cnpj', key: '11444777000161' }],
    ['Loja@Example.COM', { type: 'email', key: 'loja@example.com' }],
    ['+5511987654321', { type: 'phone', key: '+5511987654321' }],
    ['+556133334444', { type: 'phone', key: '+556133334444' }],
    [EVP.toUpperCase(), { type: 'evp', key: EVP }],
  ])('classifies %s', (raw, value) => {
    expect(classifyPixKey(raw)).toEqual({ ok: true, value });
  });

  it.each([
    ['', 'empty'],
    ['52998224724', 'cpf_check_digits'],
    ['11111111111', 'cpf_check_digits'],
    ['11444777000162', 'cnpj_check_digits'],
    ['+14155550123', 'phone_not_e164_br'],
    ['+5511187654321', 'phone_not_e164_br'],
    ['+55 11 98765-4321', 'phone_not_e164_br'],
    ['loja@', 'email_malformed'],
    ['not a key', 'unknown_key_type'],
    ['x'.repeat(78), 'too_long'],
  ])('refuses %j (%s)', (raw, reason) => {
    expect(classifyPixKey(raw)).toEqual({ ok: false, reason });
  });

  it.each([
    ['52998224725', true],
    ['00000000000', false],
    ['12345678909', true],
  ])('CPF %s valid: %s', (cpf, valid) => {
    expect(isValidCpf(cpf)).toBe(valid);
  });
  it.each([
    ['11444777000161', true],
    ['11444777000160', false],
  ])('CNPJ %s valid: %s', (cnpj, valid) => {
    expect(isValidCnpj(cnpj)).toBe(valid);
  });
});

describe('Pix payees', () => {
  it('resolves a key, a pix:-prefixed key and a BR Code to the key they pay', () => {
    expect(resolvePixPayee('+5511987654321')).toMatchObject({
      ok: true,
      payee: { kind: 'key', key: { type: 'phone' } },
    });
    expect(resolvePixPayee('pix:52998224725')).toMatchObject({
      ok: true,
      payee: { kind: 'key', key: { type: 'cpf' } },
    });
    expect(resolvePixPayee(checksummed(base()))).toMatchObject({
      ok: true,
      payee: { kind: 'brcode', key: { key: EVP }, brcode: { amountMinor: 1050n } },
    });
  });

  it('refuses a bad key with invalid_pix_key and a bad code with its carrier code', () => {
    expect(resolvePixPayee('nobody')).toMatchObject({ ok: false, code: 'invalid_pix_key' });
    expect(resolvePixPayee(`${checksummed(base()).slice(0, -4)}0000`)).toMatchObject({
      ok: false,
      code: 'carrier_crc_mismatch',
    });
  });

  it.each([
    ['52998224725', true],
    ['pix:529.982.247-25', true],
    ['12345678909', false],
    ['*', false],
  ])('allowlist entry %j names CPF key 52998224725: %s', (entry, matches) => {
    expect(pixAllowlistMatches(entry, { type: 'cpf', key: '52998224725' })).toBe(matches);
  });
});
