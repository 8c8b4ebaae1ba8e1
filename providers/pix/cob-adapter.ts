// Link payments over Pix: dynamic charges at the PSP's API Pix (`PUT /cob/{txid}`, `GET /cob/{txid}`,
// `PUT /webhook/{chave}`). The txid is the charge's idempotency key: a retried create finds its charge.
import { minorToAmount } from '../../domain/pix/brcode';
import type { ChargeState, LinkCharge, LinkRail, OpenChargeRequest } from '../../domain/payment-links/rails';
import { callProvider } from '../rails/rail';

export class ChargeRefused extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'ChargeRefused';
  }
}

export function pixCobRail(options: { baseUrl: string; timeoutMs: number }): LinkRail {
  const json = { 'content-type': 'application/json' };
  return {
    async openCharge(request: OpenChargeRequest): Promise<LinkCharge> {
      if (request.notificationUrl) {
        const hook = await callProvider(
          `${options.baseUrl}/webhook/${encodeURIComponent(request.payTo)}`,
          {
            method: 'PUT',
            headers: json,
            body: JSON.stringify({ webhookUrl: request.notificationUrl }),
          },
          options.timeoutMs,
        );
        if (hook.status !== 200)
          throw new ChargeRefused(`the PSP refused the webhook registration (${hook.status})`, hook.status);
      }
      const { status, body } = await callProvider(
        `${options.baseUrl}/cob/${encodeURIComponent(request.ref)}`,
        {
          method: 'PUT',
          headers: json,
          body: JSON.stringify({
            calendario: { expiracao: request.expiresInSeconds },
            valor: { original: minorToAmount(request.amountMinor) },
            chave: request.payTo,
            solicitacaoPagador: request.description.slice(0, 140),
          }),
        },
        options.timeoutMs,
      );
      if ((status !== 200 && status !== 201) || typeof body.pixCopiaECola !== 'string') {
        throw new ChargeRefused(
          `the PSP refused the charge (${status}: ${String(body.detail ?? body.title ?? '')})`,
          status,
        );
      }
      return { ref: request.ref, payCode: body.pixCopiaECola };
    },
    async chargeState(ref: string): Promise<ChargeState> {
      const { status, body } = await callProvider(
        `${options.baseUrl}/cob/${encodeURIComponent(ref)}`,
        { method: 'GET' },
        options.timeoutMs,
      );
      if (status === 404) return { state: 'closed', reason: 'charge_not_found' };
      if (status !== 200) throw new ChargeRefused(`the PSP answered ${status}`, status);
      if (body.status === 'ATIVA') return { state: 'open' };
      const pix = Array.isArray(body.pix)
        ? (body.pix[0] as { endToEndId?: string; valor?: string } | undefined)
        : undefined;
      if (body.status === 'CONCLUIDA' && pix?.endToEndId && pix.valor) {
        return {
          state: 'paid',
          providerRef: pix.endToEndId,
          amountMinor: BigInt(pix.valor.replace('.', '')),
        };
      }
      return { state: 'closed', reason: String(body.status) };
    },
  };
}
