// The Pix PSP adapter: DICT key lookup, payment initiation under the attempt's Idempotency-Key, and the
// status query that resolves an initiation whose answer never came.
import { minorToAmount } from '../../domain/pix/brcode';
import {
  callProvider,
  DispatchUncertain,
  type RailDispatch,
  type RailOutcome,
  type RailProvider,
} from '../rails/rail';

export interface DictOwner {
  key: string;
  keyType: string;
  ownerName: string;
  ispb: string;
}

export interface PixPsp extends RailProvider {
  /** null when DICT has no such key. */
  lookupKey(key: string, signal?: AbortSignal): Promise<DictOwner | null>;
}

function outcomeOf(status: number, body: Record<string, unknown>): RailOutcome {
  if ((status === 200 || status === 201) && typeof body.id === 'string') {
    if (body.status === 'settled') {
      return {
        status: 'settled',
        providerPaymentId: body.id,
        endToEndId: typeof body.end_to_end_id === 'string' ? body.end_to_end_id : null,
        settledAt: String(body.settled_at),
      };
    }
    return { status: 'processing', providerPaymentId: body.id };
  }
  return {
    status: 'refused',
    code: 'psp_refused',
    reason: String(body.reason ?? body.code ?? `http_${status}`),
    message: String(body.message ?? 'refused'),
  };
}

export function pixPspAdapter(options: { baseUrl: string; timeoutMs: number }): PixPsp {
  const json = { 'content-type': 'application/json' };
  return {
    async lookupKey(key, signal) {
      const { status, body } = await callProvider(
        `${options.baseUrl}/dict/v2/keys/${encodeURIComponent(key)}`,
        { method: 'GET' },
        options.timeoutMs,
        signal,
      );
      if (status === 404) return null;
      if (status !== 200) throw new DispatchUncertain(`DICT answered ${status}`, status);
      const owner = body.owner as { name?: string } | undefined;
      const account = body.account as { ispb?: string } | undefined;
      return { key, keyType: String(body.key_type), ownerName: owner?.name ?? '', ispb: account?.ispb ?? '' };
    },
    async dispatch(request: RailDispatch, signal) {
      if (!request.pix) throw new Error('a Pix dispatch needs its key');
      const { status, body } = await callProvider(
        `${options.baseUrl}/pix/v1/payments`,
        {
          method: 'POST',
          headers: { ...json, 'idempotency-key': request.idempotencyKey },
          body: JSON.stringify({
            key: request.pix.key,
            amount: minorToAmount(request.amountMinor),
            txid: request.pix.txid,
            description: request.description,
            reference: request.reference,
            notification_url: request.notificationUrl,
            ...(request.pix.fundingSourceId
              ? { debtor: { funding_source_id: request.pix.fundingSourceId } }
              : {}),
          }),
        },
        options.timeoutMs,
        signal,
      );
      // A key reused for another payment is a gateway bug, never a refusal to show the caller as psp_refused.
      if (body.code === 'idempotency_key_reuse')
        throw new Error('Pix PSP reports the idempotency key was used for another payment');
      return outcomeOf(status, body);
    },
    async status(idempotencyKey, signal) {
      const { status, body } = await callProvider(
        `${options.baseUrl}/pix/v1/payments?idempotency_key=${encodeURIComponent(idempotencyKey)}`,
        { method: 'GET' },
        options.timeoutMs,
        signal,
      );
      if (status === 404) return null;
      return outcomeOf(status, body);
    },
  };
}

/** Reads one payment by the PSP's id (the settlement webhook names it; its body is never trusted). */
export async function pixPaymentById(
  options: { baseUrl: string; timeoutMs: number },
  paymentId: string,
): Promise<{ idempotencyKey: string; outcome: RailOutcome } | null> {
  const { status, body } = await callProvider(
    `${options.baseUrl}/pix/v1/payments/${encodeURIComponent(paymentId)}`,
    { method: 'GET' },
    options.timeoutMs,
  );
  if (status === 404) return null;
  return { idempotencyKey: String(body.idempotency_key), outcome: outcomeOf(status, body) };
}
