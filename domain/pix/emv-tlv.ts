// The EMV QR "merchant-presented mode" framing Pix BR Codes use: a flat run of fields, each a two-digit
// id, a two-digit length and that many characters; some fields nest the same framing inside their value.

export interface TlvField {
  id: string;
  value: string;
  /** Offset of the field's id in the text it was read from. */
  at: number;
}

export type TlvResult = { ok: true; fields: TlvField[] } | { ok: false; at: number; reason: string };

export function readTlv(text: string): TlvResult {
  const fields: TlvField[] = [];
  let at = 0;
  while (at < text.length) {
    const head = text.slice(at, at + 4);
    if (!/^\d{4}$/.test(head))
      return { ok: false, at, reason: 'field header is not two-digit id and length' };
    const length = Number(head.slice(2));
    if (length === 0) return { ok: false, at, reason: `field ${head.slice(0, 2)} is empty` };
    const value = text.slice(at + 4, at + 4 + length);
    // Lengths count characters; a value cut short means the string was truncated.
    if ([...value].length !== length || value.length !== length)
      return { ok: false, at, reason: `field ${head.slice(0, 2)} is truncated` };
    fields.push({ id: head.slice(0, 2), value, at });
    at += 4 + length;
  }
  return { ok: true, fields };
}

export function writeTlv(id: string, value: string): string {
  if (!/^\d{2}$/.test(id)) throw new Error(`EMV field id must be two digits, got ${id}`);
  if (value.length < 1 || value.length > 99) throw new Error(`EMV field ${id} must hold 1..99 characters`);
  return `${id}${String(value.length).padStart(2, '0')}${value}`;
}
