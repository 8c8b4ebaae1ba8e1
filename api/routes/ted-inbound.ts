// The TED bank's notice of an inbound transfer. The notice is a hint, never trusted: the gateway asks the
// bank for the transfer by id and credits the amount the bank reports to the consumer sub-account it
// arrived at, once per transfer id however often the notice repeats (domain/ted/inbound.ts). A bank that
// cannot answer gets 503, so it sends its notice again.
import { creditInboundTed } from '../../domain/ted/inbound';
import { ApiError } from '../../domain/errors';
import { lookupInboundTed, type InboundTedTransfer } from '../../providers/ted/inbound-adapter';
import { ErrorEnvelope } from '../../schema/http/common';
import type { JsonSchema } from '../../schema/http/json-schema';
import { route, type AnyRoute } from '../route';

export const TED_INBOUND_PATH = '/webhooks/ted/inbound';

const TedInboundNotice = {
  type: 'object',
  required: ['transfer_id'],
  properties: {
    event: { type: 'string', maxLength: 64 },
    transfer_id: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
  },
} as const satisfies JsonSchema;

const bankUnavailable = () =>
  new ApiError(
    503,
    'ted_bank_unavailable',
    'The TED bank could not confirm the transfer; send the notice again',
  );

export const tedInboundRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: TED_INBOUND_PATH,
    auth: 'public',
    scope: null,
    tags: ['Inbound webhooks'],
    undocumented: true,
    operationId: 'tedInboundNotice',
    summary: "The TED bank's notice of an inbound transfer (a hint: the gateway asks the bank)",
    body: TedInboundNotice,
    responses: {
      200: { description: 'Received; `credited` says whether this notice credited the transfer' },
      409: { description: '`wallet_not_active`: the sub-account takes no money now', schema: ErrorEnvelope },
      503: { description: '`ted_bank_unavailable`', schema: ErrorEnvelope },
    },
    async handler({ deps, body }) {
      const baseUrl = deps.config.providerUrls.ted;
      if (!baseUrl) throw bankUnavailable();
      let transfer: InboundTedTransfer | null;
      try {
        transfer = await lookupInboundTed(
          { baseUrl, timeoutMs: deps.config.providerTimeoutMs },
          body.transfer_id,
        );
      } catch (error) {
        deps.log.warn('inbound TED could not be confirmed with the bank', {
          transfer_id: body.transfer_id,
          error: (error as Error).message,
        });
        throw bankUnavailable();
      }
      if (!transfer) return { body: { received: true, credited: false, outcome: 'unknown_transfer' } };
      const credit = await creditInboundTed(deps.db, {
        providerTransferId: transfer.id,
        destinationAccount: transfer.destinationAccount,
        amountMinor: transfer.amountMinor,
        payer: {
          ispb: transfer.payer.ispb,
          branch: transfer.payer.branch,
          account: transfer.payer.account,
          tax_id: transfer.payer.taxId,
          name: transfer.payer.name,
        },
        receivedAt: transfer.receivedAt,
      });
      if (credit.outcome === 'wallet_not_active')
        throw new ApiError(409, 'wallet_not_active', 'The receiving sub-account takes no money now');
      if (credit.outcome === 'unknown_account')
        deps.log.warn('inbound TED for an account the gateway does not hold', { transfer_id: transfer.id });
      return { body: { received: true, credited: credit.outcome === 'credited', outcome: credit.outcome } };
    },
  }),
];
