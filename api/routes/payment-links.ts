// Payment links: create, list, read, update (title, description, pause/resume, expiry, redirect) and
// delete. The spec's scope table has no link scope, so these routes are `unmapped` like webhook
// endpoints. Writes are the account's own: an OAuth client never makes them, and a service call does
// only for an acting admin.
import { ApiError } from '../../domain/errors';
import { createPaymentLink, linkCreateRequest } from '../../domain/payment-links/create';
import { deleteLink, getLink, listLinks, updateLink } from '../../domain/payment-links/links';
import { presentLink } from '../../domain/payment-links/present';
import { providerEndpoint } from '../../domain/providers/endpoints';
import { walletProvisioner } from '../../providers/x402/wallets';
import { ErrorEnvelope } from '../../schema/http/common';
import {
  PaymentLink,
  PaymentLinkCreate,
  PaymentLinkList,
  PaymentLinkUpdate,
} from '../../schema/http/payment-links';
import type { AppDeps } from '../deps';
import { requireLinkWriter } from '../flows/payment-links';
import type { Principal } from '../principal';
import { publicOrigin } from '../public-origin';
import { route, type AnyRoute } from '../route';

const tags = ['Payment links'];
const notFound = {
  description: "`payment_link_not_found`: no such link in the caller's project",
  schema: ErrorEnvelope,
};
const forbidden = {
  description:
    '`forbidden`: an OAuth token, or a service credential without an acting admin (`x-service-user`)',
  schema: ErrorEnvelope,
};
const scopeOf = (principal: Principal) => ({ orgId: principal.orgId, projectId: principal.projectId });

export const paymentLinkRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/v1/payment-links',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'createPaymentLink',
    summary: 'Create a payment link paid over x402 (USDC) or Pix (BRL)',
    description:
      'The environment comes from the calling key. A slug is generated when omitted; slugs are unique across every account.',
    body: PaymentLinkCreate,
    responses: {
      201: { description: 'The link', schema: PaymentLink },
      400: {
        description:
          '`invalid_body` (details.issues), `invalid_rail` (a rail twice), `invalid_payto` (details.index), `expires_at_in_past`',
        schema: ErrorEnvelope,
      },
      403: forbidden,
      409: { description: '`slug_conflict`: the slug is taken', schema: ErrorEnvelope },
      502: {
        description:
          '`wallet_provisioning_failed`: a provisioned x402 receiving wallet could not be created; nothing was created',
        schema: ErrorEnvelope,
      },
    },
    async handler({ deps, principal, body, ctx }) {
      await requireLinkWriter(deps, principal);
      const link = await createPaymentLink(
        deps.db,
        scopeOf(principal),
        linkCreateRequest(body, principal.environment),
        walletProvisioner(
          providerEndpoint(deps.config, 'x402_wallets', principal.environment),
          deps.config.providerTimeoutMs,
        ),
      );
      return { status: 201, body: presentLink(link, publicOrigin(deps.config, ctx)) };
    },
  }),
  route({
    method: 'get',
    path: '/v1/payment-links',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'listPaymentLinks',
    summary: "The project's payment links, newest first",
    responses: { 200: { description: 'The links', schema: PaymentLinkList } },
    async handler({ deps, principal, ctx }) {
      const origin = publicOrigin(deps.config, ctx);
      return {
        body: {
          payment_links: (await listLinks(deps.db, scopeOf(principal))).map((row) =>
            presentLink(row, origin),
          ),
        },
      };
    },
  }),
  route({
    method: 'get',
    path: '/v1/payment-links/:id',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'getPaymentLink',
    summary: 'Retrieve a payment link',
    responses: { 200: { description: 'The link', schema: PaymentLink }, 404: notFound },
    async handler({ deps, principal, params, ctx }) {
      return {
        body: presentLink(
          await getLink(deps.db, scopeOf(principal), params.id),
          publicOrigin(deps.config, ctx),
        ),
      };
    },
  }),
  route({
    method: 'patch',
    path: '/v1/payment-links/:id',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'updatePaymentLink',
    summary: 'Retitle, pause or resume, or change the expiry or redirect of a link',
    description: '`accepts` cannot be edited.',
    body: PaymentLinkUpdate,
    responses: {
      200: { description: 'The link', schema: PaymentLink },
      400: { description: '`invalid_body` (details.issues)', schema: ErrorEnvelope },
      403: forbidden,
      404: notFound,
    },
    async handler({ deps, principal, params, body, ctx }) {
      await requireLinkWriter(deps, principal);
      const link = await updateLink(deps.db, scopeOf(principal), params.id, {
        title: body.title,
        description: body.description,
        active: body.active,
        expiresAt: body.expires_at,
        redirectUrl: body.redirect_url,
      });
      return { body: presentLink(link, publicOrigin(deps.config, ctx)) };
    },
  }),
  route({
    method: 'delete',
    path: '/v1/payment-links/:id',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'deletePaymentLink',
    summary: 'Delete a link; its settled payments and receipts are kept',
    responses: { 204: { description: 'Deleted' }, 403: forbidden, 404: notFound },
    async handler({ deps, principal, params }) {
      await requireLinkWriter(deps, principal);
      await deleteLink(deps.db, scopeOf(principal), params.id);
      return { status: 204 };
    },
  }),
];
