// Provisioning runs: start one for a catalog provider with a provisioning descriptor (test projects
// only), list and read runs and their history, send the verification code the provider sent, cancel;
// and the operator's lift of a provider's quarantine. The run itself is a `provisioningRun` workflow.
import { seal } from '../../domain/crypto/secret-box';
import { ApiError } from '../../domain/errors';
import { requireServer } from '../../domain/providers/resolve';
import { liftQuarantine } from '../../domain/provisioning/quarantine';
import {
  codeSealContext,
  endRun,
  getRun,
  isOpen,
  listRuns,
  openRun,
  requireTestEnvironment,
  runSteps,
  type RunRow,
} from '../../domain/provisioning/runs';
import {
  cancelProvisioningRun,
  sendProvisioningCode,
  startProvisioningRun,
} from '../../orchestration/provisioning';
import { ErrorEnvelope } from '../../schema/http/common';
import { SlugParams } from '../../schema/http/providers';
import {
  ProvisioningCode,
  ProvisioningRun,
  ProvisioningRunCreate,
  ProvisioningRunHistory,
  ProvisioningRunList,
  ProvisioningRunListQuery,
  ProvisioningRunParams,
  type ProvisioningRunCreateBody,
} from '../../schema/http/provisioning';
import { presentHistory, presentRun } from '../presenters/provisioning-run';
import type { AppDeps } from '../deps';
import type { Principal } from '../principal';
import { route, type AnyRoute } from '../route';

const tags = ['Provisioning runs'];
const envelope = (description: string) => ({ description, schema: ErrorEnvelope });
const notFound = envelope("`not_found`: no such run in the caller's project");
const scopeOf = (p: Principal) => ({ orgId: p.orgId, projectId: p.projectId, environment: p.environment });

const stale = (run: RunRow) =>
  new ApiError(410, 'run_stale', 'The run stopped waiting for its verification code; start a new run', {
    run_id: run.id,
    expired_at: run.verification_expires_at,
  });

/** The refusal of a code for a run that is not waiting for one, read from its row. */
function notAwaiting(run: RunRow): ApiError {
  const lapsed =
    run.status === 'expired' ||
    (run.status === 'awaiting_verification' &&
      run.verification_expires_at !== null &&
      Date.parse(run.verification_expires_at) <= Date.now());
  if (lapsed) return stale(run);
  return new ApiError(409, 'not_awaiting_verification', 'The run is not waiting for a verification code', {
    run_id: run.id,
    status: run.status,
  });
}

async function startRun(deps: AppDeps, principal: Principal, slug: string, body: ProvisioningRunCreateBody) {
  requireTestEnvironment(scopeOf(principal));
  const server = await requireServer(deps.db, principal, slug);
  const run = await openRun(deps.db, scopeOf(principal), server, {
    email: body.email,
    label: body.label ?? null,
  });
  try {
    await startProvisioningRun(deps.temporal, {
      runId: run.id,
      orgId: run.org_id,
      projectId: run.project_id,
    });
  } catch (error) {
    deps.log.error('provisioning run not started', { err: (error as Error).message, run_id: run.id });
    await deps.db.transaction((tx) =>
      endRun(tx, run.id, { status: 'failed', code: 'not_started', message: 'The run could not be started' }),
    );
    throw new ApiError(
      503,
      'run_not_started',
      'The run could not be started; nothing was sent to the provider',
      {
        run_id: run.id,
      },
    );
  }
  return run;
}

export const provisioningRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/v1/providers/:slug/provisioning-runs',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'createProvisioningRun',
    summary: 'Open a sandbox account at a provider for this test project, ending in a stored connection',
    description:
      "Starts a run that signs the project up through the provider's sign-up API. When the provider emails a verification " +
      'code the run waits (`awaiting_verification`) until `verification.expires_at`; send the code to ' +
      '`POST /v1/provisioning-runs/{id}/verification`. On success the issued API key is sealed in the vault as the ' +
      "project's connection (`connection_id`), ready for `POST /v1/providers/{slug}/verify-connection`. Poll the run " +
      '(`Location`) or subscribe to `provisioning_run.*` events. One open run per project and provider.',
    params: SlugParams,
    body: ProvisioningRunCreate,
    responses: {
      201: { description: 'The run, `running` (`Location` names it)', schema: ProvisioningRun },
      400: envelope('`invalid_body` with details.issues'),
      404: envelope('`server_unknown`: not in the catalog'),
      409: envelope('`run_in_progress`: a run of this provider is open in the project (`details.run_id`)'),
      422: envelope(
        '`not_test_environment`: the project is live, nothing was started; `provider_not_provisionable`: the provider has no provisioning descriptor or is quarantined (`details.engine_status`)',
      ),
      503: envelope('`run_not_started`: the run could not be started; it is recorded `failed`'),
    },
    async handler({ deps, principal, params, body }) {
      const run = await startRun(deps, principal, params.slug, body);
      return {
        status: 201,
        body: presentRun(run),
        headers: { Location: `/v1/provisioning-runs/${run.id}` },
      };
    },
  }),
  route({
    method: 'get',
    path: '/v1/provisioning-runs',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'listProvisioningRuns',
    summary: "The project's provisioning runs, newest first",
    query: ProvisioningRunListQuery,
    responses: {
      200: { description: 'A page of runs', schema: ProvisioningRunList },
      400: envelope('`invalid_query` with details.issues'),
    },
    async handler({ deps, principal, query }) {
      const rows = await listRuns(deps.db, principal, {
        provider: query.provider,
        status: query.status,
        limit: query.limit + 1,
        startingAfter: query.starting_after,
      });
      return {
        body: { runs: rows.slice(0, query.limit).map(presentRun), has_more: rows.length > query.limit },
      };
    },
  }),
  route({
    method: 'get',
    path: '/v1/provisioning-runs/:id',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'getProvisioningRun',
    summary: 'Retrieve one provisioning run',
    params: ProvisioningRunParams,
    responses: { 200: { description: 'The run', schema: ProvisioningRun }, 404: notFound },
    async handler({ deps, principal, params }) {
      return { body: presentRun(await getRun(deps.db, principal, params.id)) };
    },
  }),
  route({
    method: 'get',
    path: '/v1/provisioning-runs/:id/history',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'getProvisioningRunHistory',
    summary: 'Every step of a run, oldest first (never a credential or a code)',
    params: ProvisioningRunParams,
    responses: { 200: { description: "The run's steps", schema: ProvisioningRunHistory }, 404: notFound },
    async handler({ deps, principal, params }) {
      const run = await getRun(deps.db, principal, params.id);
      return { body: presentHistory(run.id, await runSteps(deps.db, run.id)) };
    },
  }),
  route({
    method: 'post',
    path: '/v1/provisioning-runs/:id/verification',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'verifyProvisioningRun',
    summary: 'Send the verification code the provider emailed; the run goes on to its credential',
    params: ProvisioningRunParams,
    body: ProvisioningCode,
    responses: {
      200: {
        description: 'The provider accepted the code; the run is `running` on to its credential',
        schema: ProvisioningRun,
      },
      400: envelope('`invalid_body` with details.issues'),
      404: notFound,
      409: envelope('`not_awaiting_verification`: the run is not waiting for a code (`details.status`)'),
      410: envelope('`run_stale`: the run stopped waiting for its code (the pause expired); start a new run'),
      422: envelope('`verification_code_invalid`: the provider refused the code; the run keeps waiting'),
      502: envelope(
        '`provider_error`: the provider could not be asked; the run keeps waiting, send the code again',
      ),
    },
    async handler({ deps, principal, params, body }) {
      const run = await getRun(deps.db, principal, params.id);
      if (run.status !== 'awaiting_verification') throw notAwaiting(run);
      const codeSealed = seal(deps.config.encryptionKeys, body.code, codeSealContext(run.id));
      const answer = await sendProvisioningCode(deps.temporal, run.id, codeSealed);
      switch (answer.outcome) {
        case 'accepted':
          return { body: presentRun(await getRun(deps.db, principal, run.id)) };
        case 'invalid':
          throw new ApiError(
            422,
            'verification_code_invalid',
            'The provider refused the code; the run keeps waiting',
            {
              run_id: run.id,
            },
          );
        case 'expired':
          throw stale(await getRun(deps.db, principal, run.id));
        case 'unavailable':
          throw new ApiError(502, 'provider_error', 'The provider could not check the code; send it again', {
            run_id: run.id,
            reason: 'unreachable',
          });
        default:
          throw notAwaiting(await getRun(deps.db, principal, run.id));
      }
    },
  }),
  route({
    method: 'post',
    path: '/v1/provisioning-runs/:id/cancel',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'cancelProvisioningRun',
    summary: 'Cancel a run that has not finished; nothing is stored',
    params: ProvisioningRunParams,
    responses: {
      200: { description: 'The run, `canceled`', schema: ProvisioningRun },
      404: notFound,
      409: envelope('`run_finished`: the run had already finished (`details.status`)'),
    },
    async handler({ deps, principal, params }) {
      const run = await getRun(deps.db, principal, params.id);
      if (isOpen(run)) await cancelProvisioningRun(deps.temporal, run.id);
      const after = await getRun(deps.db, principal, run.id);
      if (after.status !== 'canceled' || !isOpen(run))
        throw new ApiError(409, 'run_finished', `The run had already finished (${after.status})`, {
          run_id: run.id,
          status: after.status,
        });
      return { body: presentRun(after) };
    },
  }),
  route({
    method: 'delete',
    path: '/v1/ops/provider-quarantines/:slug',
    auth: 'operator',
    scope: null,
    tags: ['Operations'],
    operationId: 'liftProviderQuarantine',
    summary:
      "Lift a provider's quarantine: provisioning runs may start again (x-service-user names the operator)",
    params: SlugParams,
    responses: {
      200: { description: '`{provider, quarantined_at, lifted_at}`' },
      404: envelope('`not_found`: the provider is not quarantined'),
    },
    async handler({ deps, principal, params }) {
      return { body: await liftQuarantine(deps.db, params.slug, principal.userId ?? 'service') };
    },
  }),
];
