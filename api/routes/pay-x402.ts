// A link's x402 resource, `/pay/<slug>/x402` (GET or POST; `/pay/<slug>` answers the same when asked with
// a payment header or for JSON): without a payment it answers 402 with the v2 PAYMENT-REQUIRED header and
// the v1 body; with PAYMENT-SIGNATURE (v2) or X-PAYMENT (v1) it verifies the EIP-3009 authorization,
// reserves a use of the link, settles through the payment's workflow and answers PAYMENT-RESPONSE.
import type Koa from 'koa';
import { ApiError } from '../../domain/errors';
import { findLinkBySlug, paymentLinkNotFound } from '../../domain/payment-links/links';
import { presentLinkPayment } from '../../domain/payment-links/present';
import {
  getLinkPayment,
  notPayable,
  notPayableNow,
  reserveLinkPayment,
} from '../../domain/payment-links/payments';
import {
  AuthorizationReplayed,
  authorizationSeen,
  getAuthorization,
  insertAuthorization,
} from '../../domain/payment-links/x402/authorizations';
import { encodeHeader, settleResponse } from '../../domain/payment-links/x402/payload';
import {
  paymentRequired,
  paymentRequiredV1,
  x402AcceptOf,
  x402Requirements,
  type X402Resource,
} from '../../domain/payment-links/x402/requirements';
import { verifyExactPayment, type VerifiedAuthorization } from '../../domain/payment-links/x402/verify';
import type { PaymentRequirements } from '../../domain/payment-links/x402/x402-types';
import { answerIsStored } from '../../orchestration/errors';
import { startLinkPayment } from '../../orchestration/link-payments';
import { x402Chain } from '../../providers/x402/chain';
import { facilitatorClient } from '../../providers/x402/facilitator';
import type { X402Settings } from '../../runtime/config';
import type { AppDeps } from '../deps';
import { publicOrigin } from '../public-origin';
import { route, type AnyRoute, type Reply } from '../route';

const NONCE_USED = 'invalid_exact_evm_payload_authorization_nonce_used';

/** Whether a request to the pay page is an x402 client's rather than a browser's. */
export function wantsX402(ctx: Koa.Context): boolean {
  if (ctx.get('payment-signature') || ctx.get('x-payment')) return true;
  return ctx.accepts('html', 'json') === 'json' && !ctx.get('accept').includes('text/html');
}

function challenge(
  requirements: PaymentRequirements,
  resource: X402Resource,
  error: string,
  extra?: Record<string, string>,
): Reply {
  return {
    status: 402,
    body: paymentRequiredV1(requirements, resource, error),
    headers: {
      'PAYMENT-REQUIRED': encodeHeader(paymentRequired(requirements, resource, error)),
      'Cache-Control': 'no-store',
      ...extra,
    },
  };
}

/** What only the chain (or the facilitator) knows: the nonce is unspent and the payer holds the amount. */
async function refusalFromChain(
  deps: AppDeps,
  settings: X402Settings,
  requirements: PaymentRequirements,
  header: string,
  a: VerifiedAuthorization,
): Promise<string | null> {
  if (settings.facilitatorUrl) {
    const payload = JSON.parse(Buffer.from(header, 'base64').toString('utf8'));
    const verdict = await facilitatorClient(settings.facilitatorUrl, deps.config.providerTimeoutMs).verify(
      payload,
      requirements,
    );
    return verdict.isValid ? null : (verdict.invalidReason ?? 'invalid_payment');
  }
  const chain = x402Chain(settings.rpcUrl!, settings.chainId, settings.settlerKey);
  const [used, balance] = await Promise.all([
    chain.authorizationUsed(settings.asset, a.from, a.nonce),
    chain.balanceOf(settings.asset, a.from),
  ]);
  if (used) return NONCE_USED;
  if (balance < a.value) return 'insufficient_funds';
  return null;
}

export async function x402Exchange(deps: AppDeps, ctx: Koa.Context, slug: string): Promise<Reply> {
  const link = await findLinkBySlug(deps.db, slug);
  if (!link) throw paymentLinkNotFound();
  const accept = x402AcceptOf(link);
  if (!accept) throw notPayable('rail_not_accepted');
  const settings = deps.config.x402;
  if (!settings)
    throw new ApiError(503, 'x402_unavailable', 'The x402 rail is not configured on this gateway');
  const closed = notPayableNow(link);
  if (closed) throw notPayable(closed);

  const requirements = x402Requirements(settings, accept);
  const resource = {
    url: `${publicOrigin(deps.config, ctx)}/pay/${encodeURIComponent(slug)}/x402`,
    description: link.title,
  };
  const v1 = !ctx.get('payment-signature') && Boolean(ctx.get('x-payment'));
  const header = ctx.get('payment-signature') || ctx.get('x-payment');
  if (!header)
    return challenge(requirements, resource, 'A PAYMENT-SIGNATURE (or X-PAYMENT) header is required');

  const verified = await verifyExactPayment(header, requirements, Math.floor(Date.now() / 1000));
  if (!verified.ok) return challenge(requirements, resource, verified.reason);
  const a = verified.authorization;
  if (await authorizationSeen(deps.db, settings.network, settings.asset, a.from, a.nonce))
    return challenge(requirements, resource, NONCE_USED);
  const refusal = await refusalFromChain(deps, settings, requirements, header, a);
  if (refusal) return challenge(requirements, resource, refusal);

  let paymentId: string;
  try {
    const payment = await reserveLinkPayment(deps.db, slug, 'x402', (tx, opened) =>
      insertAuthorization(tx, opened.id, settings.network, settings.asset, a),
    );
    paymentId = payment.id;
    await startLinkPayment(deps.temporal, {
      paymentId: payment.id,
      linkId: payment.link_id,
      orgId: payment.org_id,
      projectId: payment.project_id,
      environment: payment.environment,
      description: link.title,
      expiresInSeconds: settings.maxTimeoutSeconds,
      notificationUrl: null,
      rail: 'x402',
      amountMinor: payment.amount_minor,
    }).catch((error: unknown) => {
      // A refused settlement fails the update; the payment row says what happened.
      if (!answerIsStored(error)) throw error;
    });
  } catch (error) {
    if (error instanceof AuthorizationReplayed) return challenge(requirements, resource, NONCE_USED);
    throw error;
  }

  const [payment, authorization] = await Promise.all([
    getLinkPayment(deps.db, paymentId),
    getAuthorization(deps.db, paymentId),
  ]);
  const responseHeader = v1 ? 'X-PAYMENT-RESPONSE' : 'PAYMENT-RESPONSE';
  if (payment!.status === 'succeeded') {
    const settled = settleResponse(settings.network, a.from, {
      success: true,
      transaction: payment!.provider_ref!,
    });
    return {
      status: 200,
      body: { payment: presentLinkPayment(payment!), redirect_url: link.redirect_url },
      headers: { [responseHeader]: encodeHeader(settled), 'Cache-Control': 'no-store' },
    };
  }
  if (payment!.status === 'pending') return { status: 202, body: { payment: presentLinkPayment(payment!) } };
  const failed = settleResponse(settings.network, a.from, {
    success: false,
    transaction: authorization?.tx_hash ?? '',
    errorReason: 'settlement_failed',
  });
  return challenge(requirements, resource, 'settlement_failed', { [responseHeader]: encodeHeader(failed) });
}

const x402Route = (method: 'get' | 'post'): AnyRoute =>
  route({
    method,
    path: '/pay/:slug/x402',
    auth: 'public',
    scope: null,
    tags: ['Payment links'],
    undocumented: true,
    operationId: method === 'get' ? 'payLinkX402' : 'payLinkX402Post',
    summary: "A link's x402 resource: 402 with its payment requirements, or a settled payment",
    responses: {
      200: { description: 'Settled; PAYMENT-RESPONSE carries the transaction' },
      402: {
        description:
          'PAYMENT-REQUIRED (v2 header) and the v1 body, with the refusal reason when a payment was sent',
      },
    },
    handler: ({ deps, ctx, params }) => x402Exchange(deps, ctx, params.slug),
  });

export const payX402Routes: AnyRoute[] = [x402Route('get'), x402Route('post')];
