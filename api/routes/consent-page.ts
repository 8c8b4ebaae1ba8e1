// The hosted consent page at consent_url (`/consent/<token>`), its assets, and its own submit
// (`POST /consent/<token>`). Public, and not API operations: the token is the credential, and the submit
// takes only what the page's own script sends (see pages/consent-csrf.ts). An unknown, used or expired
// token gets a page that says so, with the matching status.
import { findConsentByDigest } from '../../domain/consents/consents';
import { consentNotFound, submitConsent, tokenRefusal } from '../../domain/consents/submit';
import { isConsentToken, tokenDigest } from '../../domain/consents/tokens';
import { notFound } from '../../domain/errors';
import { ConsentPageSubmit } from '../../schema/http/consents';
import { mandateTimer, signalLifecycle } from '../../orchestration/consents';
import { CONSENT_SCRIPT, CONSENT_STYLE } from '../pages/consent-assets';
import { CONSENT_PAGE_HEADERS, consentMessagePage, consentPage } from '../pages/consent';
import { checkConsentCsrf, consentCsrfToken } from '../pages/consent-csrf';
import { publicOrigin } from '../public-origin';
import { route, type AnyRoute, type Reply } from '../route';

const html = (status: number, body: string): Reply => ({
  status,
  body,
  type: 'text/html; charset=utf-8',
  headers: CONSENT_PAGE_HEADERS,
});

const ASSETS: Record<string, { body: string; type: string }> = {
  'consent.js': { body: CONSENT_SCRIPT, type: 'application/javascript; charset=utf-8' },
  'consent.css': { body: CONSENT_STYLE, type: 'text/css; charset=utf-8' },
};

export const consentPageRoutes: AnyRoute[] = [
  route({
    method: 'get',
    path: '/consent/assets/:file',
    auth: 'public',
    scope: null,
    tags: ['Consents'],
    undocumented: true,
    operationId: 'consentPageAsset',
    summary: 'Consent page script and style',
    responses: { 200: { description: 'Asset' } },
    handler({ params }) {
      const asset = ASSETS[params.file];
      if (!asset) throw notFound('Asset');
      return {
        body: asset.body,
        type: asset.type,
        headers: { 'Cache-Control': 'public, max-age=300', 'X-Content-Type-Options': 'nosniff' },
      };
    },
  }),
  route({
    method: 'get',
    path: '/consent/:token',
    auth: 'public',
    scope: null,
    tags: ['Consents'],
    undocumented: true,
    operationId: 'consentPage',
    summary: 'The hosted consent page',
    responses: { 200: { description: 'HTML' } },
    async handler({ deps, params }) {
      const missing = html(
        404,
        consentMessagePage(
          'Consent not found',
          'This link is not valid. Ask the service that sent it for a new one.',
        ),
      );
      if (!isConsentToken(params.token)) return missing;
      const consent = await findConsentByDigest(deps.db, tokenDigest(params.token));
      if (!consent) return missing;
      const refusal = tokenRefusal(consent);
      if (refusal?.code === 'consent_token_consumed')
        return html(
          409,
          consentMessagePage(
            'Already authorized',
            'This request was already answered. Nothing more is needed.',
          ),
        );
      if (refusal)
        return html(
          410,
          consentMessagePage(
            'This request expired',
            'Consent requests are valid for 24 hours. Ask the service for a new one.',
          ),
        );
      if (consent.surface === 'partner') {
        return html(
          409,
          consentMessagePage(
            'Confirm in the partner app',
            'This request is confirmed in the app of the service that asked, not on this page.',
          ),
        );
      }
      return html(
        200,
        consentPage(
          consent,
          params.token,
          consentCsrfToken(deps.config.encryptionKeys, consent.token_digest),
        ),
      );
    },
  }),
  route({
    method: 'post',
    path: '/consent/:token',
    auth: 'public',
    scope: null,
    tags: ['Consents'],
    undocumented: true,
    bodyOptional: true,
    operationId: 'consentPageSubmit',
    summary: "The hosted consent page's own submit: the consumer authorizes",
    body: ConsentPageSubmit,
    responses: {
      201: { description: 'What the page shows: the mandate id, its expiry and where to continue' },
    },
    async handler({ deps, params, body, ctx }) {
      if (!isConsentToken(params.token)) throw consentNotFound();
      const digest = tokenDigest(params.token);
      checkConsentCsrf(
        ctx,
        deps.config.encryptionKeys,
        digest,
        new URL(publicOrigin(deps.config, ctx)).origin,
      );
      const result = await submitConsent(deps.db, deps.config.encryptionKeys, params.token, body, {
        ipAddress: ctx.ip || null,
      });
      await signalLifecycle(deps.temporal, deps.log, result.consent, result.mandate, {
        kind: 'signed',
        timer: mandateTimer(result.mandate),
      });
      // The page needs only what it shows; the signed mandate goes to the partner through its API.
      return {
        status: 201,
        headers: { 'Cache-Control': 'no-store' },
        body: {
          mandate_id: result.mandate.id,
          expires_at: result.mandate.expires_at,
          callback_url: result.consent.callback_url,
        },
      };
    },
  }),
];
