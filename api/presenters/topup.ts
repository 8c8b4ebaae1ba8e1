// The public shapes of a wallet top-up (a Pix charge or a USDC deposit) and of a deposit address.
import QRCode from 'qrcode';
import type { DepositAddressRow } from '../../domain/topups/deposit-addresses';
import type { TopupRow } from '../../domain/topups/topups';

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** `withQr` renders the BR Code as an SVG QR code (a create and a retrieve; lists leave it out). */
export async function presentTopup(
  row: TopupRow,
  options: { withQr?: boolean; replayed?: boolean } = {},
): Promise<Record<string, unknown>> {
  const d = row.details;
  const qrSvg =
    options.withQr && row.br_code
      ? await QRCode.toString(row.br_code, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 })
      : null;
  return {
    id: row.id,
    object: 'wallet_topup',
    wallet_id: row.wallet_id,
    method: row.method,
    currency: row.currency,
    amount_minor: row.amount_minor.toString(),
    status: row.status,
    attempt_id: row.attempt_id,
    external_ref: row.status === 'credited' ? row.provider_ref : null,
    ledger_entry_id: row.ledger_entry_id?.toString() ?? null,
    expires_at: row.expires_at,
    credited_at: row.status === 'credited' ? row.settled_at : null,
    failure_reason: row.failure_reason,
    created_at: row.created_at,
    ...(options.replayed === undefined ? {} : { replayed: options.replayed }),
    pix:
      row.method === 'pix'
        ? { txid: row.txid, br_code: row.br_code, qr_svg: qrSvg, end_to_end_id: text(d.end_to_end_id) }
        : null,
    usdc:
      row.method === 'usdc'
        ? {
            network: text(d.network),
            tx_hash: text(d.tx_hash),
            log_index: typeof d.log_index === 'number' ? d.log_index : null,
            block_number: text(d.block_number),
            from: text(d.from),
          }
        : null,
  };
}

export function presentDepositAddress(
  row: DepositAddressRow,
  confirmations: number,
): Record<string, unknown> {
  return {
    object: 'deposit_address',
    wallet_id: row.wallet_id,
    currency: 'USDC',
    network: row.network,
    asset: row.asset,
    address: row.address,
    confirmations,
    created_at: row.created_at,
  };
}
