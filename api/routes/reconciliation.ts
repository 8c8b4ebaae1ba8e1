// Reconciliation over HTTP: run it for the project now, read a run, list anomalies and resolve them.
import { listAnomalies, resolveAnomaly, type AnomalyRow } from '../../domain/reconciliation/anomalies';
import { getRun } from '../../domain/reconciliation/run';
import { notFound } from '../../domain/errors';
import { prefixedId } from '../../domain/ids';
import { ErrorEnvelope } from '../../schema/http/common';
import {
  AnomalyListQuery,
  ReconRun,
  WalletAnomalyResolve,
  WalletReconAnomaly,
} from '../../schema/http/wallets';
import { runReconciliation } from '../../orchestration/reconciliation';
import { route, type AnyRoute } from '../route';

const tags = ['Wallet reconciliation'];

function presentAnomaly(row: AnomalyRow) {
  return {
    id: row.id,
    wallet_id: row.wallet_id,
    org_id: row.org_id,
    kind: row.kind,
    ledger_entry_id: row.ledger_entry_id?.toString() ?? null,
    external_ref: row.external_ref,
    amount_minor: row.amount_minor?.toString() ?? null,
    currency: row.currency,
    detected_at: row.detected_at,
    status: row.status,
    resolved_at: row.resolved_at,
    resolution_note: row.resolution_note,
    metadata: row.metadata,
  };
}

export const reconciliationRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/v1/wallet-reconciliations',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'runWalletReconciliation',
    summary: "Compare the project's provider debits with the provider's settlement records now",
    description:
      'Also runs hourly for every project with unreconciled debits. Matches are stamped `reconciled_at`; each finding opens one anomaly, never twice.',
    responses: { 201: { description: 'The finished run', schema: ReconRun } },
    async handler({ deps, principal }) {
      const runId = prefixedId('rcn');
      const run = await runReconciliation(deps.temporal, {
        orgId: principal.orgId,
        projectId: principal.projectId,
        environment: principal.environment,
        runId,
      });
      return { status: 201, body: run };
    },
  }),
  route({
    method: 'get',
    path: '/v1/wallet-reconciliations/:id',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'getWalletReconciliation',
    summary: 'Read a reconciliation run',
    responses: {
      200: { description: 'The run', schema: ReconRun },
      404: { description: '`not_found`', schema: ErrorEnvelope },
    },
    async handler({ deps, principal, params }) {
      const run = await getRun(deps.db, principal.orgId, principal.projectId, params.id);
      if (!run) throw notFound('Reconciliation run');
      return { body: run };
    },
  }),
  route({
    method: 'get',
    path: '/v1/wallet-anomalies',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'listWalletAnomalies',
    summary: 'Reconciliation anomalies, newest first',
    query: AnomalyListQuery,
    responses: {
      200: {
        description: 'Anomalies',
        schema: {
          type: 'object',
          required: ['anomalies'],
          properties: { anomalies: { type: 'array', items: WalletReconAnomaly } },
        },
      },
      400: { description: '`invalid_query`', schema: ErrorEnvelope },
    },
    async handler({ deps, principal, query }) {
      const rows = await listAnomalies(deps.db, principal.orgId, principal.projectId, {
        status: query.status,
        walletId: query.wallet_id,
        limit: query.limit,
      });
      return { body: { anomalies: rows.map(presentAnomaly) } };
    },
  }),
  route({
    method: 'post',
    path: '/v1/wallet-anomalies/:id/resolve',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'resolveWalletAnomaly',
    summary: 'Resolve or dismiss an open anomaly with an optional note',
    body: WalletAnomalyResolve,
    responses: {
      200: { description: 'The anomaly', schema: WalletReconAnomaly },
      400: { description: '`invalid_body`', schema: ErrorEnvelope },
      404: { description: '`not_found`', schema: ErrorEnvelope },
      409: { description: '`invalid_transition`: not open', schema: ErrorEnvelope },
    },
    async handler({ deps, principal, params, body }) {
      const row = await resolveAnomaly(
        deps.db,
        { orgId: principal.orgId, projectId: principal.projectId, environment: principal.environment },
        params.id,
        { status: body.status, note: body.note ?? null },
      );
      return { body: presentAnomaly(row) };
    },
  }),
];
