// Parses and checks a Pix BR Code ("copia e cola"): EMV framing, the checksum, the Pix merchant
// account template and the fields a payer relies on. Refusals carry a `carrier_*` code so a caller
// can tell a truncated paste from a checksum typo from a code that is not Pix at all.
import { crc16Hex } from './crc16';
import { readTlv, writeTlv, type TlvField } from './emv-tlv';
import { classifyPixKey, type PixKey } from './pix-key';

export const PIX_GUI = 'br.gov.bcb.pix';
export const BRCODE_MAX_LENGTH = 512;

export type CarrierCode =
  | 'carrier_too_long'
  | 'carrier_malformed'
  | 'carrier_crc_missing'
  | 'carrier_crc_mismatch'
  | 'carrier_payload_format'
  | 'carrier_duplicate_field'
  | 'carrier_not_pix'
  | 'carrier_field_missing'
  | 'carrier_currency'
  | 'carrier_country'
  | 'carrier_invalid_amount'
  | 'carrier_invalid_key'
  | 'carrier_dynamic_unsupported';

export interface BrCode {
  initiation: 'static' | 'dynamic';
  key: PixKey;
  /** Amount fixed by the code, in centavos; null lets the payer choose. */
  amountMinor: bigint | null;
  merchantName: string;
  merchantCity: string;
  mcc: string;
  postalCode: string | null;
  txid: string | null;
  description: string | null;
  crc: string;
}

export type BrCodeResult = { ok: true; code: BrCode } | { ok: false; code: CarrierCode; detail: string };

const refuse = (code: CarrierCode, detail: string): BrCodeResult => ({ ok: false, code, detail });

/** A string that looks like an EMV payload rather than a Pix key: it opens with the format indicator. */
export function looksLikeBrCode(text: string): boolean {
  return /^\s*0002\d\d/.test(text);
}

function byId(fields: TlvField[]): Map<string, string> | string {
  const map = new Map<string, string>();
  for (const field of fields) {
    if (map.has(field.id)) return field.id;
    map.set(field.id, field.value);
  }
  return map;
}

/** `54` holds a decimal with a dot and at most two decimals ("10", "10.5", "10.50"); centavos exactly, no floats. */
export function amountToMinor(text: string): bigint | null {
  const match = /^(\d{1,10})(?:\.(\d{1,2}))?$/.exec(text);
  if (!match) return null;
  const minor = BigInt(match[1]) * 100n + BigInt((match[2] ?? '').padEnd(2, '0'));
  return minor > 0n ? minor : null;
}

export function minorToAmount(minor: bigint): string {
  return `${minor / 100n}.${(minor % 100n).toString().padStart(2, '0')}`;
}

function pixAccount(fields: Map<string, string>): { template: Map<string, string> } | BrCodeResult {
  for (let id = 26; id <= 51; id++) {
    const value = fields.get(String(id));
    if (!value) continue;
    const inner = readTlv(value);
    if (!inner.ok) return refuse('carrier_malformed', `merchant account field ${id}: ${inner.reason}`);
    const template = byId(inner.fields);
    if (typeof template === 'string')
      return refuse('carrier_duplicate_field', `merchant account field ${id} repeats ${template}`);
    if ((template.get('00') ?? '').toLowerCase() === PIX_GUI) return { template };
  }
  return refuse('carrier_not_pix', `no merchant account template names ${PIX_GUI}`);
}

export function parseBrCode(raw: string): BrCodeResult {
  // Copy-and-paste tends to bring a trailing newline or spaces along; nothing inside is touched.
  const text = raw.trim();
  if (text.length > BRCODE_MAX_LENGTH)
    return refuse('carrier_too_long', `longer than ${BRCODE_MAX_LENGTH} characters`);
  const tlv = readTlv(text);
  if (!tlv.ok) return refuse('carrier_malformed', `at offset ${tlv.at}: ${tlv.reason}`);
  const last = tlv.fields[tlv.fields.length - 1];
  if (!last || last.id !== '63' || last.value.length !== 4)
    return refuse('carrier_crc_missing', 'the last field must be 63 with four hex digits');
  const expected = crc16Hex(text.slice(0, last.at + 4));
  if (last.value.toUpperCase() !== expected)
    return refuse('carrier_crc_mismatch', `checksum ${last.value} does not match the content (${expected})`);

  const first = tlv.fields[0];
  if (first.id !== '00' || first.value !== '01')
    return refuse('carrier_payload_format', 'the first field must be 00 with value 01');
  const fields = byId(tlv.fields);
  if (typeof fields === 'string') return refuse('carrier_duplicate_field', `field ${fields} appears twice`);

  const account = pixAccount(fields);
  if ('ok' in account) return account;
  for (const [id, name] of [
    ['52', 'merchant category code'],
    ['53', 'transaction currency'],
    ['58', 'country code'],
    ['59', 'merchant name'],
    ['60', 'merchant city'],
  ]) {
    if (!fields.has(id)) return refuse('carrier_field_missing', `field ${id} (${name}) is required`);
  }
  if (!/^\d{4}$/.test(fields.get('52')!)) return refuse('carrier_malformed', 'field 52 must be four digits');
  if (fields.get('53') !== '986')
    return refuse('carrier_currency', `currency ${fields.get('53')} is not BRL (986)`);
  if (fields.get('58') !== 'BR') return refuse('carrier_country', `country ${fields.get('58')} is not BR`);
  if (fields.get('59')!.length > 25)
    return refuse('carrier_malformed', 'merchant name is longer than 25 characters');
  if (fields.get('60')!.length > 15)
    return refuse('carrier_malformed', 'merchant city is longer than 15 characters');

  let amountMinor: bigint | null = null;
  if (fields.has('54')) {
    amountMinor = amountToMinor(fields.get('54')!);
    if (amountMinor === null)
      return refuse(
        'carrier_invalid_amount',
        `amount "${fields.get('54')}" is not a positive decimal with at most two places`,
      );
  }
  const initiationField = fields.get('01');
  if (initiationField !== undefined && initiationField !== '11' && initiationField !== '12') {
    return refuse('carrier_malformed', `point of initiation ${initiationField} is neither 11 nor 12`);
  }
  const keyText = account.template.get('01');
  if (!keyText) {
    // A dynamic code names a location to fetch a signed payload from; this gateway never fetches it.
    if (account.template.has('25'))
      return refuse(
        'carrier_dynamic_unsupported',
        'dynamic codes that carry only a payload location are not supported',
      );
    return refuse('carrier_invalid_key', 'the Pix template carries no key');
  }
  const key = classifyPixKey(keyText);
  if (!key.ok) return refuse('carrier_invalid_key', `the Pix key is not valid: ${key.reason}`);

  let txid: string | null = null;
  if (fields.has('62')) {
    const additional = readTlv(fields.get('62')!);
    if (!additional.ok) return refuse('carrier_malformed', `additional data field: ${additional.reason}`);
    const sub = byId(additional.fields);
    if (typeof sub === 'string') return refuse('carrier_duplicate_field', `additional data repeats ${sub}`);
    txid = sub.get('05') ?? null;
    if (txid !== null && txid !== '***' && !/^[A-Za-z0-9]{1,25}$/.test(txid))
      return refuse('carrier_malformed', 'txid must be 1..25 alphanumerics or ***');
  }
  return {
    ok: true,
    code: {
      initiation: initiationField === '12' ? 'dynamic' : 'static',
      key: key.value,
      amountMinor,
      merchantName: fields.get('59')!,
      merchantCity: fields.get('60')!,
      mcc: fields.get('52')!,
      postalCode: fields.get('61') ?? null,
      txid: txid === '***' ? null : txid,
      description: account.template.get('02') ?? null,
      crc: last.value.toUpperCase(),
    },
  };
}

export interface BrCodeInput {
  key: string;
  amountMinor?: bigint;
  merchantName: string;
  merchantCity: string;
  txid?: string;
  description?: string;
  mcc?: string;
  initiation?: 'static' | 'dynamic';
}

/** Builds a checksummed static BR Code, the way a receiving bank's app prints one. */
export function buildBrCode(input: BrCodeInput): string {
  const account =
    writeTlv('00', PIX_GUI) +
    writeTlv('01', input.key) +
    (input.description ? writeTlv('02', input.description) : '');
  const body = [
    writeTlv('00', '01'),
    input.initiation ? writeTlv('01', input.initiation === 'static' ? '11' : '12') : '',
    writeTlv('26', account),
    writeTlv('52', input.mcc ?? '0000'),
    writeTlv('53', '986'),
    input.amountMinor !== undefined ? writeTlv('54', minorToAmount(input.amountMinor)) : '',
    writeTlv('58', 'BR'),
    writeTlv('59', input.merchantName),
    writeTlv('60', input.merchantCity),
    writeTlv('62', writeTlv('05', input.txid ?? '***')),
    '6304',
  ].join('');
  return body + crc16Hex(body);
}
