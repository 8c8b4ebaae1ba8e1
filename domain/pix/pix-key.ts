// Pix key classification as the DICT directory defines the five key types: CPF (11 digits), CNPJ
// (14 digits), email, phone (+55, area code, number) and EVP (a random uuid). Returns the key in the
// form DICT stores it, or why it is not a key.
import { isValidCnpj, isValidCpf } from './document-digits';

export type PixKeyType = 'cpf' | 'cnpj' | 'email' | 'phone' | 'evp';

export interface PixKey {
  type: PixKeyType;
  /** The key as DICT stores it: digits only for CPF/CNPJ, lower-case email and EVP, +55 phone. */
  key: string;
}

export type PixKeyResult = { ok: true; value: PixKey } | { ok: false; reason: string };

const EMAIL =
  /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;
const EVP = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// +55, a two-digit area code (11-99, no zero), then 8 digits (landline) or 9 starting with 9 (mobile).
const PHONE = /^\+55[1-9][1-9](?:9\d{8}|[2-8]\d{7})$/;
const FORMATTED_CPF = /^\d{3}\.\d{3}\.\d{3}-\d{2}$/;
const FORMATTED_CNPJ = /^\d{2}\.\d{3}\.\d{3}\/\d{4}-\d{2}$/;

export function classifyPixKey(raw: string): PixKeyResult {
  const value = raw.trim();
  if (value.length === 0) return { ok: false, reason: 'empty' };
  if (value.length > 77) return { ok: false, reason: 'too_long' };
  if (value.startsWith('+')) {
    return PHONE.test(value)
      ? { ok: true, value: { type: 'phone', key: value } }
      : { ok: false, reason: 'phone_not_e164_br' };
  }
  if (value.includes('@')) {
    const email = value.toLowerCase();
    return EMAIL.test(email)
      ? { ok: true, value: { type: 'email', key: email } }
      : { ok: false, reason: 'email_malformed' };
  }
  if (EVP.test(value.toLowerCase())) return { ok: true, value: { type: 'evp', key: value.toLowerCase() } };
  const digits = FORMATTED_CPF.test(value) || FORMATTED_CNPJ.test(value) ? value.replace(/\D/g, '') : value;
  if (/^\d{11}$/.test(digits))
    return isValidCpf(digits)
      ? { ok: true, value: { type: 'cpf', key: digits } }
      : { ok: false, reason: 'cpf_check_digits' };
  if (/^\d{14}$/.test(digits))
    return isValidCnpj(digits)
      ? { ok: true, value: { type: 'cnpj', key: digits } }
      : { ok: false, reason: 'cnpj_check_digits' };
  return { ok: false, reason: 'unknown_key_type' };
}
