// POST /v1/wallets/{id}/execute: the route's declaration; the payment itself is flows/wallet-execute.ts.
import { ErrorEnvelope } from '../../schema/http/common';
import { GatewayPaymentResult, WalletExecute } from '../../schema/http/execute';
import { PolicyDenial } from '../../schema/http/policies';
import { executeWalletPayment } from '../flows/wallet-execute';
import { route, type AnyRoute } from '../route';

export const executeRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/v1/wallets/:id/execute',
    auth: 'key',
    scope: 'unmapped',
    tags: ['Wallets'],
    operationId: 'executeWalletPayment',
    summary: 'Pay from a wallet: policy, hold, provider dispatch, then debit or release',
    description:
      'Runs as a durable spend attempt keyed by `attempt_id`. `completed` and `failed` answer 200 (`wallet.insufficientFunds` is reported, not thrown); a policy denial or a hold for approval answers 403 with the flat denial body `{reason, ruleType, ruleId}` (plus `approval_id`, `expires_at`) merged with the result. A replay of a finished attempt carries `Idempotent-Replayed: true`.',
    body: WalletExecute,
    responses: {
      200: { description: '`completed` or `failed`', schema: GatewayPaymentResult },
      400: {
        description:
          "`invalid_body` (details.issues), including an amount finer than the currency's minor unit",
        schema: ErrorEnvelope,
      },
      403: {
        description: '`denied` or `requires-approval`: the policy-denial body with the result fields',
        schema: { allOf: [PolicyDenial, GatewayPaymentResult] },
      },
      404: { description: '`not_found`', schema: ErrorEnvelope },
      409: {
        description:
          '`wallet_not_active`, `attempt_id_conflict` (same attempt_id, another body), `attempt_in_progress` (retry with Retry-After; also while the provider has not said whether an unanswered payment was made, the money staying held)',
        schema: ErrorEnvelope,
      },
      503: {
        description:
          "`provider_unavailable`: no payment provider is configured for the key's environment (live or sandbox); nothing was held",
        schema: ErrorEnvelope,
      },
    },
    handler: ({ deps, principal, params, body, requestId }) =>
      executeWalletPayment(deps, principal, params.id, body, requestId),
  }),
];
