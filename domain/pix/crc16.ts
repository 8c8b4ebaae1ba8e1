// CRC16-CCITT (polynomial 0x1021, initial 0xFFFF, no reflection, no final xor): the checksum a Pix
// BR Code carries in its last field, written as four upper-case hex digits.

const TABLE: Uint16Array = (() => {
  const table = new Uint16Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte << 8;
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[byte] = crc;
  }
  return table;
})();

export function crc16Ccitt(input: string | Uint8Array): number {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  let crc = 0xffff;
  for (const byte of bytes) crc = ((crc << 8) & 0xffff) ^ TABLE[((crc >> 8) ^ byte) & 0xff];
  return crc;
}

export function crc16Hex(input: string | Uint8Array): string {
  return crc16Ccitt(input).toString(16).toUpperCase().padStart(4, '0');
}
