// Inbound TED at the bank: the gateway never credits from a notice's body; it asks the bank for the
// transfer by id and acts on the bank's answer. A 404 means the bank knows no such transfer (a forged or
// mistaken notice); no answer or a 5xx is thrown so the caller retries.
import { callProvider } from '../rails/rail';

export interface InboundTedTransfer {
  id: string;
  destinationAccount: string;
  amountMinor: bigint;
  payer: { ispb: string; branch: string; account: string; taxId: string | null; name: string | null };
  receivedAt: string;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

export async function lookupInboundTed(
  options: { baseUrl: string; timeoutMs: number },
  transferId: string,
): Promise<InboundTedTransfer | null> {
  const { status, body } = await callProvider(
    `${options.baseUrl}/ted/v1/inbound-transfers/${encodeURIComponent(transferId)}`,
    { method: 'GET' },
    options.timeoutMs,
  );
  if (status === 404) return null;
  const amount = text(body.amount_minor);
  const account = text(body.destination_account);
  if (
    status !== 200 ||
    body.id !== transferId ||
    body.status !== 'completed' ||
    !amount ||
    !/^[1-9]\d{0,17}$/.test(amount) ||
    !account
  )
    throw new Error(`the TED bank answered ${status} without a completed inbound transfer ${transferId}`);
  const payer = (body.payer ?? {}) as Record<string, unknown>;
  return {
    id: transferId,
    destinationAccount: account,
    amountMinor: BigInt(amount),
    payer: {
      ispb: text(payer.ispb) ?? '',
      branch: text(payer.branch) ?? '',
      account: text(payer.account) ?? '',
      taxId: text(payer.tax_id),
      name: text(payer.name),
    },
    receivedAt: text(body.received_at) ?? new Date().toISOString(),
  };
}
