// A wallet's top-ups: open a Pix top-up (BRL), list and read top-ups, read a USDC wallet's deposit
// address; and the PSP's notice of a paid top-up charge (a hint: the workflow asks the PSP).
import { findTopupByTxid, getTopup, listTopups } from '../../domain/topups/topups';
import { noteTopupNotice } from '../../orchestration/wallet-topups';
import { ErrorEnvelope } from '../../schema/http/common';
import { DepositAddress, Topup, TopupCreate, TopupList, TopupListQuery } from '../../schema/http/topups';
import { createPixTopup, PIX_TOPUP_NOTICE_PATH, readDepositAddress } from '../flows/wallet-topups';
import { presentDepositAddress, presentTopup } from '../presenters/topup';
import type { Principal } from '../principal';
import { publicOrigin } from '../public-origin';
import { route, type AnyRoute } from '../route';
import { PixNotice } from './pay';

const tags = ['Wallet top-ups'];
const envelope = (description: string) => ({ description, schema: ErrorEnvelope });
const notFound = envelope("`not_found`: no such wallet (or top-up of it) in the caller's project");
const unsupported = envelope(
  "`topup_method_unsupported`: the wallet's currency is not carried by that method (Pix: BRL; deposits: USDC), or this gateway has no provider for it (details.reason `not_configured`)",
);
const scopeOf = (p: Principal) => ({ orgId: p.orgId, projectId: p.projectId, environment: p.environment });

export const walletTopupRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/v1/wallets/:id/topups',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'createWalletTopup',
    summary: 'Top up a BRL wallet by Pix: a charge whose BR Code the payer pays',
    description:
      'Opens a dynamic Pix charge at the PSP and answers with its BR Code (copia-e-cola and an SVG QR) and `expires_at`. ' +
      'The wallet is credited once, by one `fund` ledger entry with `external_ref` `pix:<endToEndId>`, when the PSP confirms the payment ' +
      '(`wallet.topup.credited`); a charge that lapses unpaid ends `expired` with nothing credited (`wallet.topup.expired`).',
    body: TopupCreate,
    responses: {
      201: { description: 'The pending top-up with its BR Code', schema: Topup },
      200: { description: 'The top-up this attempt_id opened before (`replayed: true`)', schema: Topup },
      400: envelope('`invalid_body` with details.issues'),
      404: notFound,
      409: envelope(
        '`wallet_not_active`, `attempt_id_conflict` (another request under this attempt_id), `attempt_in_progress`',
      ),
      422: unsupported,
      502: envelope('`provider_error`: the PSP could not open the charge; nothing will be credited'),
    },
    async handler({ deps, principal, params, body, ctx }) {
      const { topup, replayed } = await createPixTopup(
        deps,
        scopeOf(principal),
        params.id,
        body,
        publicOrigin(deps.config, ctx),
      );
      return { status: replayed ? 200 : 201, body: await presentTopup(topup, { withQr: true, replayed }) };
    },
  }),
  route({
    method: 'get',
    path: '/v1/wallets/:id/topups',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'listWalletTopups',
    summary: "List a wallet's top-ups (Pix charges and USDC deposits), newest first",
    query: TopupListQuery,
    responses: {
      200: { description: 'A page of top-ups', schema: TopupList },
      400: envelope('`invalid_query` with details.issues'),
      404: notFound,
    },
    async handler({ deps, principal, params, query }) {
      const rows = await listTopups(deps.db, scopeOf(principal), params.id, {
        limit: query.limit + 1,
        startingAfter: query.starting_after,
      });
      const page = rows.slice(0, query.limit);
      return {
        body: {
          topups: await Promise.all(page.map((row) => presentTopup(row))),
          has_more: rows.length > query.limit,
        },
      };
    },
  }),
  route({
    method: 'get',
    path: '/v1/wallets/:id/topups/:topupId',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'getWalletTopup',
    summary: 'Retrieve one top-up of a wallet',
    responses: { 200: { description: 'The top-up', schema: Topup }, 404: notFound },
    async handler({ deps, principal, params }) {
      const topup = await getTopup(deps.db, scopeOf(principal), params.id, params.topupId);
      return { body: await presentTopup(topup, { withQr: topup.status === 'pending' }) };
    },
  }),
  route({
    method: 'get',
    path: '/v1/wallets/:id/deposit-address',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'getWalletDepositAddress',
    summary: "A USDC wallet's deposit address on the chain (made on first read)",
    description:
      'Each USDC transfer to the address is credited once after `confirmations` blocks, by one `fund` ledger entry with ' +
      '`external_ref` `usdc:<txhash>:<logIndex>`, and listed among the top-ups (`method: usdc`).',
    responses: {
      200: { description: 'The deposit address', schema: DepositAddress },
      404: notFound,
      409: envelope('`wallet_not_active`: a frozen or closed wallet gets no new address'),
      422: unsupported,
      502: envelope('`provider_error`: the address could not be made; nothing was created'),
    },
    async handler({ deps, principal, params }) {
      const row = await readDepositAddress(deps, scopeOf(principal), params.id);
      return { body: presentDepositAddress(row, deps.config.topups.usdcConfirmations) };
    },
  }),
  route({
    method: 'post',
    path: PIX_TOPUP_NOTICE_PATH,
    auth: 'public',
    scope: null,
    tags: ['Inbound webhooks'],
    undocumented: true,
    operationId: 'pixTopupNotice',
    summary: "The PSP's notice of paid top-up charges (a hint: the workflow asks the PSP)",
    body: PixNotice,
    responses: { 200: { description: 'Received' } },
    async handler({ deps, body }) {
      let noted = 0;
      for (const { txid } of body.pix) {
        const topup = await findTopupByTxid(deps.db, txid);
        if (topup?.status === 'pending' && (await noteTopupNotice(deps.temporal, topup.org_id, topup.id)))
          noted++;
      }
      return { body: { received: true, noted } };
    },
  }),
];
