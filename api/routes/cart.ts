// Cart connect: a start opens a browser-worker session on a fresh context for the person to sign in
// to the merchant and records it pending; the finish, single-use and only for the organization and
// project that started it, marks it connected and releases the worker's session.
import { ApiError } from '../../domain/errors';
import { claimConnectFinish, recordPendingConnect } from '../../domain/cart/connect-sessions';
import { IFOOD_NOTE, MERCHANT_LOGIN_URL, type CartMerchant } from '../../domain/cart/merchants';
import { BrowserWorkerFailed, configuredBrowserWorker } from '../../providers/browser-worker/worker';
import { ErrorEnvelope } from '../../schema/http/common';
import {
  ConnectFinish,
  ConnectFinished,
  ConnectFinishParams,
  IfoodConnectStarted,
  MeliConnectStarted,
} from '../../schema/http/cart';
import type { AppDeps } from '../deps';
import type { Principal } from '../principal';
import { route, type AnyRoute } from '../route';

const tags = ['Cart connect'];
const envelope = (description: string) => ({ description, schema: ErrorEnvelope });

async function startConnect(deps: AppDeps, principal: Principal, merchant: CartMerchant) {
  const worker = configuredBrowserWorker(deps.config, principal.environment);
  if (!worker)
    throw new ApiError(503, 'browser_worker_unavailable', 'No browser worker is configured for cart connect');
  let opened;
  try {
    opened = await worker.openSession({
      startUrl: MERCHANT_LOGIN_URL[merchant],
      reference: `${principal.orgId}/${principal.projectId}/${merchant}`,
    });
  } catch (error) {
    if (!(error instanceof BrowserWorkerFailed)) throw error;
    deps.log.warn('browser worker failed a cart connect start', { err: error.message, merchant });
    throw new ApiError(
      502,
      'browser_worker_failed',
      'The browser worker failed; a retry starts a new connect',
    );
  }
  try {
    return await recordPendingConnect(deps.db, principal, { merchant, ...opened });
  } catch (error) {
    // The worker's context is abandoned: a retry mints a new one, so nothing is reused half-recorded.
    deps.log.error('cart connect session not recorded', { err: (error as Error).message, merchant });
    throw new ApiError(
      502,
      'connect_not_recorded',
      'The connect could not be recorded; a retry starts a new one',
    );
  }
}

const startErrors = {
  502: envelope(
    '`browser_worker_failed` (the worker failed) or `connect_not_recorded` (the pending session could not be recorded); a retry mints a new context',
  ),
  503: envelope('`browser_worker_unavailable`: no browser worker is configured (terminal)'),
};

export const cartRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/v1/cart/meli/connect/start',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'startMeliConnect',
    summary: 'Open a browser session for the person to sign in to Mercado Livre',
    responses: { 200: { description: 'Pending connect', schema: MeliConnectStarted }, ...startErrors },
    async handler({ deps, principal }) {
      const row = await startConnect(deps, principal, 'meli');
      return {
        body: {
          merchant: 'meli',
          context_id: row.context_id,
          session_id: row.session_id,
          live_view_url: row.live_view_url,
        },
      };
    },
  }),
  route({
    method: 'post',
    path: '/v1/cart/ifood/connect/start',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'startIfoodConnect',
    summary: 'Open a browser session for the person to sign in to iFood (checkout is not supported)',
    responses: { 200: { description: 'Pending connect', schema: IfoodConnectStarted }, ...startErrors },
    async handler({ deps, principal }) {
      const row = await startConnect(deps, principal, 'ifood');
      return {
        body: {
          merchant: 'ifood',
          context_id: row.context_id,
          session_id: row.session_id,
          live_view_url: row.live_view_url,
          checkout_supported: false,
          note: IFOOD_NOTE,
        },
      };
    },
  }),
  route({
    method: 'post',
    path: '/v1/cart/:merchant/connect/finish',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'finishCartConnect',
    summary: 'Finish a connect once the person signed in: single-use, only by the project that started it',
    params: ConnectFinishParams,
    body: ConnectFinish,
    responses: {
      200: { description: 'Connected', schema: ConnectFinished },
      400: envelope('`invalid_body`, or a merchant other than `meli` or `ifood`'),
      404: envelope('`not_found`: no connect of this merchant was started with this context in this project'),
      409: envelope('`connect_already_finished`: the finish is single-use'),
      410: envelope('`connect_expired`: the pending connect lapsed; start a new one'),
    },
    async handler({ deps, principal, params, body }) {
      const row = await claimConnectFinish(deps.db, principal, params.merchant, body.context_id);
      // The login lives in the context; the session is only the window the person used. A worker that
      // fails to release it lets it time out on its own, so the finished connect stands.
      const worker = configuredBrowserWorker(deps.config, principal.environment);
      await worker?.releaseSession(row.session_id).catch((error: unknown) => {
        deps.log.warn('browser worker did not release a finished session', { err: (error as Error).message });
      });
      return {
        body: {
          merchant: row.merchant,
          context_id: row.context_id,
          status: 'connected',
          connected_at: row.connected_at,
        },
      };
    },
  }),
];
