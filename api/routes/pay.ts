// The buyer's side of a payment link, public and outside the OpenAPI document (the spec shows no buyer
// operations): open a payment over a rail, read its status, and the PSP's notice of a paid Pix charge.
// Opening a payment reserves one of the link's uses before any money can move.
import { ApiError } from '../../domain/errors';
import {
  findLinkPaymentByRailRef,
  getLinkPayment,
  LINK_CHARGE_SECONDS,
  reserveLinkPayment,
} from '../../domain/payment-links/payments';
import type { LinkPaymentRow } from '../../domain/payment-links/payment-row';
import { findLinkBySlug } from '../../domain/payment-links/links';
import { presentLinkPayment } from '../../domain/payment-links/present';
import { answerIsStored } from '../../orchestration/errors';
import { noteLinkRailNotice, startLinkPayment } from '../../orchestration/link-payments';
import type { JsonSchema } from '../../schema/http/json-schema';
import type { AppDeps } from '../deps';
import { publicOrigin } from '../public-origin';
import { payPageHeaders, renderMessagePage, renderMissingPage, renderPayPage } from '../pages/pay';
import { route, type AnyRoute, type Reply } from '../route';
import { openEventStream } from '../sse/event-stream';
import { wantsX402, x402Exchange } from './pay-x402';

const tags = ['Payment links'];
export const PIX_NOTICE_PATH = '/webhooks/pix/link-payments';

const PaymentOpen = {
  type: 'object',
  required: ['rail'],
  additionalProperties: false,
  properties: { rail: { enum: ['pix', 'x402'] } },
} as const satisfies JsonSchema;
export const PixNotice = {
  type: 'object',
  required: ['pix'],
  properties: {
    pix: {
      type: 'array',
      maxItems: 100,
      items: { type: 'object', required: ['txid'], properties: { txid: { type: 'string', maxLength: 35 } } },
    },
  },
} as const satisfies JsonSchema;

async function openPayment(
  deps: AppDeps,
  slug: string,
  rail: 'pix' | 'x402',
  origin: string,
): Promise<LinkPaymentRow> {
  // An x402 payment opens with the buyer's signed authorization at the link's x402 resource.
  if (rail === 'x402')
    throw new ApiError(
      400,
      'use_x402_resource',
      'x402 payments are made at /pay/<slug>/x402 with a PAYMENT-SIGNATURE header',
      {
        resource: `${origin}/pay/${encodeURIComponent(slug)}/x402`,
      },
    );
  const payment = await reserveLinkPayment(deps.db, slug, rail);
  const link = (await findLinkBySlug(deps.db, slug))!;
  try {
    await startLinkPayment(deps.temporal, {
      paymentId: payment.id,
      linkId: payment.link_id,
      orgId: payment.org_id,
      projectId: payment.project_id,
      environment: payment.environment,
      description: link.title,
      expiresInSeconds: LINK_CHARGE_SECONDS,
      notificationUrl: `${origin}${PIX_NOTICE_PATH}`,
      rail,
      amountMinor: payment.amount_minor,
    });
  } catch (error) {
    // The workflow ended (the charge was refused) before answering: what it stored says what happened.
    if (!answerIsStored(error)) throw error;
  }
  const stored = (await getLinkPayment(deps.db, payment.id))!;
  if (stored.status === 'pending' && stored.pay_code) return stored;
  throw new ApiError(
    502,
    'provider_error',
    'The payment provider could not open the charge; the link was not charged, try again',
    { payment_status: stored.status },
  );
}

const REFUSALS: Record<string, string> = {
  paused: 'This payment link is paused and cannot be paid right now.',
  void: 'This payment link was closed.',
  paid: 'This payment link has already been paid.',
  expired: 'This payment link has expired.',
  max_uses_reached: 'This payment link has reached its number of payments.',
  rail_not_accepted: 'This payment link does not accept that way of paying.',
};

const TERMINAL = new Set(['succeeded', 'failed', 'expired']);
const STATUS_POLL_MS = 250;

/** The payment's states as server-sent events: the current one at once, each change, and the terminal one. */
function statusStream(deps: AppDeps, first: LinkPaymentRow): Reply {
  const events = openEventStream(deps.config.sse);
  let last = '';
  const emit = (row: LinkPaymentRow) => {
    if (row.status === last) return;
    last = row.status;
    if (TERMINAL.has(row.status)) events.finish('status', presentLinkPayment(row));
    else events.send('status', presentLinkPayment(row));
  };
  emit(first);
  const watch = async () => {
    while (!events.closed() && !TERMINAL.has(last)) {
      await new Promise((resolve) => setTimeout(resolve, STATUS_POLL_MS));
      const row = await getLinkPayment(deps.db, first.id);
      if (row) emit(row);
    }
  };
  watch().catch(() =>
    events.finish('error', { error: { code: 'internal_error', message: 'The status stream stopped' } }),
  );
  return {
    status: 200,
    body: events.stream,
    type: 'text/event-stream',
    headers: {
      'Cache-Control': 'no-cache, no-transform',
      'X-Accel-Buffering': 'no',
      Connection: 'keep-alive',
    },
  };
}

const page = (status: number, body: string): Reply => ({
  status,
  body,
  type: 'text/html; charset=utf-8',
  headers: payPageHeaders,
});

export const payRoutes: AnyRoute[] = [
  route({
    method: 'get',
    path: '/pay/:slug',
    auth: 'public',
    scope: null,
    tags,
    undocumented: true,
    operationId: 'payPage',
    summary: 'The pay page of a link',
    responses: { 200: { description: 'HTML', contentType: 'text/html' } },
    async handler({ deps, params, ctx }) {
      if (wantsX402(ctx)) return x402Exchange(deps, ctx, params.slug);
      const link = await findLinkBySlug(deps.db, params.slug);
      if (!link) return page(404, renderMissingPage());
      const reason = link.status !== 'active' ? link.status : !link.active ? 'paused' : null;
      return page(200, await renderPayPage({ link, refusal: reason ? REFUSALS[reason] : null, pix: null }));
    },
  }),
  route({
    method: 'post',
    path: '/pay/:slug',
    auth: 'public',
    scope: null,
    tags,
    undocumented: true,
    operationId: 'payPageSubmit',
    summary: "The pay page's form: opens a Pix payment and shows its BR Code",
    body: { type: 'object', required: ['rail'], properties: { rail: { const: 'pix' } } },
    bodyTypes: ['form'],
    responses: { 200: { description: 'HTML', contentType: 'text/html' } },
    onInputError: () =>
      page(
        400,
        renderMessagePage(
          'Payment not started',
          'The form was not sent as the page built it; go back to the pay page and try again.',
        ),
      ),
    async handler({ deps, params, ctx }) {
      const link = await findLinkBySlug(deps.db, params.slug);
      if (!link) return page(404, renderMissingPage());
      try {
        const payment = await openPayment(deps, params.slug, 'pix', publicOrigin(deps.config, ctx));
        return page(
          200,
          await renderPayPage({
            link,
            refusal: null,
            pix: { paymentId: payment.id, brCode: payment.pay_code! },
          }),
        );
      } catch (error) {
        if (!(error instanceof ApiError) || (error.status >= 500 && error.code !== 'provider_error'))
          throw error;
        if (error.status === 404) return page(404, renderMissingPage());
        const reason = typeof error.details?.reason === 'string' ? error.details.reason : null;
        return page(
          error.status,
          await renderPayPage({
            link,
            refusal: reason ? REFUSALS[reason] : 'The payment could not be started; please try again.',
            pix: null,
          }),
        );
      }
    },
  }),
  route({
    method: 'post',
    path: '/pay/:slug/payments',
    auth: 'public',
    scope: null,
    tags,
    undocumented: true,
    operationId: 'openLinkPayment',
    summary: 'Open a payment of a link over one rail (reserves a use)',
    body: PaymentOpen,
    responses: { 201: { description: 'The pending payment and what to pay it with' } },
    async handler({ deps, params, body, ctx }) {
      const payment = await openPayment(deps, params.slug, body.rail, publicOrigin(deps.config, ctx));
      return { status: 201, body: presentLinkPayment(payment) };
    },
  }),
  route({
    method: 'get',
    path: '/pay/:slug/payments/:id',
    auth: 'public',
    scope: null,
    tags,
    undocumented: true,
    operationId: 'getLinkPayment',
    summary: "A link payment's status",
    responses: { 200: { description: 'The payment' } },
    async handler({ deps, params }) {
      const [link, payment] = await Promise.all([
        findLinkBySlug(deps.db, params.slug),
        getLinkPayment(deps.db, params.id),
      ]);
      if (!link || !payment || payment.link_id !== link.id)
        throw new ApiError(404, 'not_found', 'Payment not found');
      return { body: presentLinkPayment(payment) };
    },
  }),
  route({
    method: 'get',
    path: '/pay/:slug/payments/:id/events',
    auth: 'public',
    scope: null,
    tags,
    undocumented: true,
    operationId: 'streamLinkPayment',
    summary: "A link payment's states as server-sent events",
    description:
      'text/event-stream: `status` events (the current state at once, then each change), `heartbeat` every 15 s; closes 5 s after a terminal state (`succeeded`, `failed`, `expired`).',
    responses: { 200: { description: 'Server-sent events', contentType: 'text/event-stream' } },
    async handler({ deps, params }) {
      const [link, payment] = await Promise.all([
        findLinkBySlug(deps.db, params.slug),
        getLinkPayment(deps.db, params.id),
      ]);
      if (!link || !payment || payment.link_id !== link.id)
        throw new ApiError(404, 'not_found', 'Payment not found');
      return statusStream(deps, payment);
    },
  }),
  route({
    method: 'post',
    path: PIX_NOTICE_PATH,
    auth: 'public',
    scope: null,
    tags: ['Inbound webhooks'],
    undocumented: true,
    operationId: 'pixLinkPaymentNotice',
    summary: "The PSP's notice of paid Pix charges (a hint: the workflow asks the PSP)",
    body: PixNotice,
    responses: { 200: { description: 'Received' } },
    async handler({ deps, body }) {
      let noted = 0;
      for (const { txid } of body.pix) {
        const payment = await findLinkPaymentByRailRef(deps.db, txid);
        if (
          payment &&
          payment.status === 'pending' &&
          (await noteLinkRailNotice(deps.temporal, payment.link_id, payment.id))
        )
          noted++;
      }
      return { body: { received: true, noted } };
    },
  }),
];
