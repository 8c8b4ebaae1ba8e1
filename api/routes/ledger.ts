// The wallet ledger over HTTP: post an entry (WalletLedgerPost) and list a wallet's entries.
import { ApiError, notFound } from '../../domain/errors';
import { listEntries } from '../../domain/ledger/entries';
import { postAdjustment, postingRefusal } from '../../domain/ledger/adjustments';
import { postEntry } from '../../domain/ledger/post-entry';
import { getWallet } from '../../domain/wallets/wallets';
import { ErrorEnvelope } from '../../schema/http/common';
import type { JsonSchema } from '../../schema/http/json-schema';
import { LedgerList, LedgerListQuery, LedgerPostResult, WalletLedgerPost } from '../../schema/http/wallets';
import { balanceView, entryView } from '../../domain/wallets/views';
import { actorOf } from '../principal';
import { route, type AnyRoute } from '../route';

const tags = ['Wallet ledger'];
/** Amounts and balances are PostgreSQL bigints. */
const INT8_MAX = 9_223_372_036_854_775_807n;

// The document says what the handler takes: a positive amount of at most 19 digits (zero is refused by
// the schema, not later). A pattern cannot say "at most INT8_MAX"; the handler refuses the few 19-digit
// amounts past it with the same invalid_body, as the description says.
const LedgerPostBody = {
  ...WalletLedgerPost,
  properties: {
    ...WalletLedgerPost.properties,
    amount_minor: {
      ...WalletLedgerPost.properties.amount_minor,
      pattern: '^0*[1-9][0-9]{0,18}$',
      description: `A positive amount in minor units, as decimal digits, at most ${INT8_MAX}.`,
    },
  },
} as const satisfies JsonSchema;

export const ledgerRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/v1/ledger-entries',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'postLedgerEntry',
    summary: "Post an entry to a wallet's ledger",
    body: LedgerPostBody,
    responses: {
      201: {
        description: "The entry (and a partial debit's remainder release) with the balance after it",
        schema: LedgerPostResult,
      },
      400: {
        description:
          '`invalid_body` with details.issues (a service credential without `reason` included); `user_id_required`: a service credential without x-service-user',
        schema: ErrorEnvelope,
      },
      403: {
        description:
          '`engine_owned_entry` (`hold`, `release`, `debit`), `live_ledger_locked` (an API key in a live project), `route_scope_unmapped` (an OAuth token), `operator_adjustment_required` (`reconcile`, `reverse`, `fee` by a key); nothing written',
        schema: ErrorEnvelope,
      },
      404: {
        description: "`not_found`: the wallet is not in the caller's organization and project",
        schema: ErrorEnvelope,
      },
      409: {
        description:
          '`wallet_not_active`, `balance_constraint_violation` (nothing written), `ledger_conflict` (repeated external_ref, a hold already resolved, or a concurrent conflicting write; retryable)',
        schema: ErrorEnvelope,
      },
    },
    async handler({ deps, principal, body }) {
      if (body.org_id !== principal.orgId) throw notFound('Wallet');
      const amount = BigInt(body.amount_minor);
      if (amount > INT8_MAX)
        throw new ApiError(400, 'invalid_body', `amount_minor must be at most ${INT8_MAX}`, {
          issues: [{ path: '/amount_minor', message: `must be <= ${INT8_MAX}`, keyword: 'maximum' }],
        });
      const refusal = postingRefusal(principal, body.kind, body.reason);
      if (refusal) throw refusal;
      const scope = {
        orgId: principal.orgId,
        projectId: principal.projectId,
        environment: principal.environment,
      };
      const input = {
        walletId: body.wallet_id,
        currency: body.currency,
        kind: body.kind,
        amount,
        mandateId: body.mandate_id,
        attemptId: body.attempt_id,
        externalRef: body.external_ref,
        metadata: body.metadata,
      };
      const result =
        principal.kind === 'service'
          ? await postAdjustment(deps.db, scope, input, { actor: actorOf(principal), reason: body.reason! })
          : await postEntry(deps.db, scope, input);
      const entries = result.release ? [result.entry, result.release] : [result.entry];
      return {
        status: 201,
        body: {
          entry: entryView(result.entry),
          entries: entries.map(entryView),
          balance: balanceView(result.balance),
        },
      };
    },
  }),
  route({
    method: 'get',
    path: '/v1/wallets/:id/ledger-entries',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'listLedgerEntries',
    summary: "List a wallet's ledger entries, newest first, filterable by kind and currency",
    query: LedgerListQuery,
    responses: {
      200: { description: 'A page of entries', schema: LedgerList },
      400: { description: '`invalid_query`', schema: ErrorEnvelope },
      404: { description: '`not_found`', schema: ErrorEnvelope },
    },
    async handler({ deps, principal, params, query }) {
      await getWallet(deps.db, principal.orgId, principal.projectId, params.id);
      const rows = await listEntries(deps.db, principal.orgId, principal.projectId, params.id, {
        kind: query.kind,
        currency: query.currency,
        limit: query.limit + 1,
        before: query.before ? BigInt(query.before) : undefined,
      });
      const page = rows.slice(0, query.limit);
      const hasMore = rows.length > query.limit;
      return {
        body: {
          entries: page.map(entryView),
          has_more: hasMore,
          next_before: hasMore ? page[page.length - 1].id.toString() : null,
        },
      };
    },
  }),
];
