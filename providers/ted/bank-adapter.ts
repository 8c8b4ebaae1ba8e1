// The TED provider adapter: sends a transfer from the consumer's own sub-account under the attempt's
// Idempotency-Key, and looks a transfer up by that key when the answer never came.
import { callProvider, type RailOutcome, type RailProvider } from '../rails/rail';

function outcomeOf(status: number, body: Record<string, unknown>): RailOutcome {
  if ((status === 200 || status === 201) && typeof body.id === 'string' && body.status === 'completed') {
    return {
      status: 'settled',
      providerPaymentId: body.id,
      endToEndId: null,
      settledAt: String(body.created_at),
    };
  }
  if ((status === 200 || status === 201) && typeof body.id === 'string')
    return { status: 'processing', providerPaymentId: body.id };
  return {
    status: 'refused',
    code: 'psp_refused',
    reason: String(body.reason ?? body.code ?? `http_${status}`),
    message: String(body.message ?? 'refused'),
  };
}

export function tedAdapter(options: { baseUrl: string; timeoutMs: number }): RailProvider {
  return {
    async dispatch(request, signal) {
      if (!request.ted) throw new Error('a TED dispatch needs its destination');
      const { ted } = request;
      const { status, body } = await callProvider(
        `${options.baseUrl}/ted/v1/transfers`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': request.idempotencyKey },
          body: JSON.stringify({
            source_account: ted.sourceAccount,
            amount_minor: request.amountMinor.toString(),
            reference: request.reference,
            description: request.description,
            destination: {
              ispb: ted.ispb,
              branch: ted.branch,
              account: ted.account,
              tax_id: ted.taxId,
              name: ted.name,
              account_type: ted.accountType,
            },
          }),
        },
        options.timeoutMs,
        signal,
      );
      if (body.code === 'idempotency_key_reuse')
        throw new Error('TED provider reports the idempotency key was used for another transfer');
      return outcomeOf(status, body);
    },
    async status(idempotencyKey, signal) {
      const { status, body } = await callProvider(
        `${options.baseUrl}/ted/v1/transfers?idempotency_key=${encodeURIComponent(idempotencyKey)}`,
        { method: 'GET' },
        options.timeoutMs,
        signal,
      );
      if (status === 404) return null;
      return outcomeOf(status, body);
    },
  };
}
