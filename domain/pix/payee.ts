// What a Pix payee string names: a DICT key typed directly, or a BR Code pasted whole. Either way the
// payment goes to one key; a code may also fix the amount.
import { looksLikeBrCode, parseBrCode, type BrCode, type CarrierCode } from './brcode';
import { classifyPixKey, type PixKey } from './pix-key';

export type PixPayee = { kind: 'key'; key: PixKey } | { kind: 'brcode'; key: PixKey; brcode: BrCode };

export type PixPayeeResult =
  { ok: true; payee: PixPayee } | { ok: false; code: CarrierCode | 'invalid_pix_key'; detail: string };

export function resolvePixPayee(raw: string): PixPayeeResult {
  if (looksLikeBrCode(raw)) {
    const parsed = parseBrCode(raw);
    if (!parsed.ok) return parsed;
    return { ok: true, payee: { kind: 'brcode', key: parsed.code.key, brcode: parsed.code } };
  }
  const key = classifyPixKey(raw.startsWith('pix:') ? raw.slice(4) : raw);
  if (!key.ok)
    return {
      ok: false,
      code: 'invalid_pix_key',
      detail: `payee is neither a Pix key nor a BR Code (${key.reason})`,
    };
  return { ok: true, payee: { kind: 'key', key: key.value } };
}

/** Allowlist entries may name a key bare or as `pix:<key>`; both match the normalized key. */
export function pixAllowlistMatches(entry: string, key: PixKey): boolean {
  const text = entry.trim().startsWith('pix:') ? entry.trim().slice(4) : entry.trim();
  const parsed = classifyPixKey(text);
  return parsed.ok && parsed.value.type === key.type && parsed.value.key === key.key;
}
