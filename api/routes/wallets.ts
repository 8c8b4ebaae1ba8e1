// Wallets: create, list, read with balances, freeze/unfreeze/close, funding sources and transfers.
import { ApiError } from '../../domain/errors';
import {
  bindFundingSource,
  listFundingSources,
  unbindFundingSource,
} from '../../domain/wallets/funding-sources';
import { transfer, transferAmount } from '../../domain/wallets/transfers';
import {
  createWallet,
  getWallet,
  listWallets,
  moveWallet,
  walletBalances,
  type WalletAction,
} from '../../domain/wallets/wallets';
import { ErrorEnvelope } from '../../schema/http/common';
import {
  Wallet,
  WalletCreate,
  WalletFundingSource,
  WalletFundingSourceBind,
  WalletList,
  WalletListQuery,
  WalletTransfer,
  WalletTransferCreate,
} from '../../schema/http/wallets';
import { balanceView, transferView } from '../../domain/wallets/views';
import { presentFundingSource, presentWallet } from '../presenters/wallet';
import type { Principal } from '../principal';
import { route, type AnyRoute } from '../route';

const tags = ['Wallets'];
const notFound = {
  description: "`not_found`: no such wallet in the caller's project",
  schema: ErrorEnvelope,
};
const badRequest = {
  description: '`invalid_body` / `invalid_query` with details.issues',
  schema: ErrorEnvelope,
};
const scopeOf = (p: Principal) => ({ orgId: p.orgId, projectId: p.projectId, environment: p.environment });

function statusRoute(action: WalletAction, summary: string): AnyRoute {
  return route({
    method: 'post',
    path: `/v1/wallets/:id/${action}`,
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: `${action}Wallet`,
    summary,
    responses: {
      200: { description: 'The wallet after the move', schema: Wallet },
      404: notFound,
      409: {
        description: '`invalid_transition` (details.status), `wallet_not_empty` (close with money left)',
        schema: ErrorEnvelope,
      },
    },
    async handler({ deps, principal, params }) {
      const wallet = await moveWallet(deps.db, scopeOf(principal), params.id, action);
      return {
        body: presentWallet(
          wallet,
          await walletBalances(deps.db, principal.orgId, principal.projectId, [wallet.id]),
        ),
      };
    },
  });
}

export const walletRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/v1/wallets',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'createWallet',
    summary: 'Create a wallet with a zero balance in its currency',
    body: WalletCreate,
    responses: { 201: { description: 'The new wallet with its balances', schema: Wallet }, 400: badRequest },
    async handler({ deps, principal, body }) {
      const wallet = await createWallet(deps.db, scopeOf(principal), {
        displayName: body.display_name,
        currency: body.currency,
        agentId: body.agent_id ?? null,
        metadata: body.metadata,
      });
      return { status: 201, body: presentWallet(wallet, wallet.balances) };
    },
  }),
  route({
    method: 'get',
    path: '/v1/wallets',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'listWallets',
    summary: "List the project's wallets with their balances, newest first",
    query: WalletListQuery,
    responses: { 200: { description: 'A page of wallets', schema: WalletList }, 400: badRequest },
    async handler({ deps, principal, query }) {
      const rows = await listWallets(deps.db, principal.orgId, principal.projectId, {
        status: query.status,
        agentId: query.agent_id,
        limit: query.limit + 1,
        startingAfter: query.starting_after,
      });
      const page = rows.slice(0, query.limit);
      const balances = await walletBalances(
        deps.db,
        principal.orgId,
        principal.projectId,
        page.map((w) => w.id),
      );
      return {
        body: { wallets: page.map((w) => presentWallet(w, balances)), has_more: rows.length > query.limit },
      };
    },
  }),
  route({
    method: 'get',
    path: '/v1/wallets/:id',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'getWallet',
    summary: 'Retrieve a wallet with its balances',
    responses: { 200: { description: 'The wallet', schema: Wallet }, 404: notFound },
    async handler({ deps, principal, params }) {
      const wallet = await getWallet(deps.db, principal.orgId, principal.projectId, params.id);
      return {
        body: presentWallet(
          wallet,
          await walletBalances(deps.db, principal.orgId, principal.projectId, [wallet.id]),
        ),
      };
    },
  }),
  statusRoute('freeze', 'Freeze a wallet: it stops accepting ledger entries'),
  statusRoute('unfreeze', 'Return a frozen wallet to active'),
  statusRoute('close', 'Close a wallet for good (its balances must be zero)'),
  route({
    method: 'post',
    path: '/v1/wallets/:id/funding-sources',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'bindWalletFundingSource',
    summary: 'Bind a provider connection as the funding source of a currency',
    body: WalletFundingSourceBind,
    responses: {
      201: { description: 'The binding', schema: WalletFundingSource },
      400: badRequest,
      404: { description: '`not_found` (wallet), `connection_not_found`', schema: ErrorEnvelope },
      409: {
        description: '`connection_not_active`, `funding_rail_mismatch`, `funding_source_conflict`',
        schema: ErrorEnvelope,
      },
    },
    async handler({ deps, principal, params, body }) {
      const row = await bindFundingSource(deps.db, scopeOf(principal), params.id, {
        connectionId: body.connection_id,
        currency: body.currency,
        metadata: body.metadata,
      });
      return { status: 201, body: presentFundingSource(row) };
    },
  }),
  route({
    method: 'get',
    path: '/v1/wallets/:id/funding-sources',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'listWalletFundingSources',
    summary: "List a wallet's funding sources",
    responses: {
      200: {
        description: 'Bindings',
        schema: {
          type: 'object',
          required: ['funding_sources'],
          properties: { funding_sources: { type: 'array', items: WalletFundingSource } },
        },
      },
      404: notFound,
    },
    async handler({ deps, principal, params }) {
      await getWallet(deps.db, principal.orgId, principal.projectId, params.id);
      const rows = await listFundingSources(deps.db, principal.orgId, principal.projectId, params.id);
      return { body: { funding_sources: rows.map(presentFundingSource) } };
    },
  }),
  route({
    method: 'delete',
    path: '/v1/wallets/:id/funding-sources/:connectionId',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'unbindWalletFundingSource',
    summary: 'Unbind a funding source',
    responses: {
      200: { description: 'The removed binding', schema: WalletFundingSource },
      404: { description: '`not_found` (wallet), `funding_source_not_found`', schema: ErrorEnvelope },
    },
    async handler({ deps, principal, params }) {
      return {
        body: presentFundingSource(
          await unbindFundingSource(deps.db, scopeOf(principal), params.id, params.connectionId),
        ),
      };
    },
  }),
  route({
    method: 'post',
    path: '/v1/wallets/:id/transfers',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'createWalletTransfer',
    summary: 'Move money to another wallet of the project in the same currency',
    body: WalletTransferCreate,
    responses: {
      201: { description: 'The transfer with its two entries', schema: WalletTransfer },
      400: badRequest,
      404: notFound,
      409: {
        description:
          '`wallet_not_active`, `balance_constraint_violation`, `ledger_conflict` (repeated external_ref or concurrent write)',
        schema: ErrorEnvelope,
      },
      422: { description: '`same_slot_transfer`, `unsupported_transfer_route`', schema: ErrorEnvelope },
    },
    async handler({ deps, principal, params, body }) {
      const input = {
        fromWalletId: params.id,
        toWalletId: body.to_wallet_id,
        currency: body.currency,
        toCurrency: body.to_currency ?? body.currency,
        amount: transferAmount(body.amount_minor),
        externalRef: body.external_ref ?? null,
        metadata: body.metadata,
      };
      return { status: 201, body: transferView(input, await transfer(deps.db, scopeOf(principal), input)) };
    },
  }),
];
