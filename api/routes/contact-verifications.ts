// Contact verification of a consumer's email or phone: start (sends a one-time code) and verify.
import { ErrorEnvelope } from '../../schema/http/common';
import {
  ContactVerification,
  ContactVerificationCheck,
  ContactVerificationStart,
  ContactVerified,
} from '../../schema/http/contact-verification';
import { startContactVerification, verifyContactCode } from '../flows/contact-verification';
import { presentVerification } from '../presenters/consumer';
import { route, type AnyRoute } from '../route';
import { tenantOf } from './consumers';

const tags = ['Contact verification'];
const envelope = (description: string) => ({ description, schema: ErrorEnvelope });

export const contactVerificationRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/v1/consumers/:consumerId/contact-verifications',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'startContactVerification',
    summary: "Send a one-time code to the consumer's email or phone",
    description:
      'Test projects send through the `dev` sender; live projects through Prelude (phone) or Resend (email). ' +
      'A newer code for the same contact supersedes the older one.',
    body: ContactVerificationStart,
    responses: {
      201: { description: 'Code sent', schema: ContactVerification },
      400: envelope('`invalid_body` (details.issues), `invalid_target`'),
      422: envelope(
        "`no_partner_account` (no active pix-partner funding source, or not this organization's consumer), `otp_sender_refused` (details.provider; nothing sent, nothing counted)",
      ),
      429: envelope('`too_many_requests` (details.window_seconds, details.max_sends; Retry-After)'),
      500: envelope('`contact_verification_error`'),
      503: envelope(
        '`otp_sender_unavailable`: no sender configured (retry changes nothing); send failed (row removed, retry free); or the code was sent but the verification could not open (details.verification_id; it counts against the ceiling)',
      ),
    },
    async handler({ deps, principal, params, body }) {
      const row = await startContactVerification(deps, tenantOf(principal), params.consumerId, body);
      return { status: 201, body: presentVerification(row) };
    },
  }),
  route({
    method: 'post',
    path: '/v1/consumers/:consumerId/contact-verifications/:id/verify',
    auth: 'key',
    scope: 'unmapped',
    tags,
    operationId: 'verifyContact',
    summary: 'Check a one-time code; a match verifies the contact and the consumer',
    body: ContactVerificationCheck,
    responses: {
      200: { description: 'Verified', schema: ContactVerified },
      400: envelope(
        '`invalid_body`, `invalid_code` (not 4..8 digits, or a mismatch; details.attempts_left; only a mismatch spends an attempt), `invalid_target`',
      ),
      404: envelope(
        "`not_found`: unknown id, another consumer's or organization's row, a send that never completed, or a target that does not match (spends an attempt)",
      ),
      409: envelope('`already_verified`'),
      410: envelope('`verification_expired`: expired or superseded'),
      429: envelope('`too_many_attempts`: every attempt spent, no reset'),
      500: envelope('`contact_verification_error`'),
      503: envelope(
        "`otp_sender_unavailable`: the provider did not answer (attempt spent, details.attempts_left) or no sender for the row's provider (nothing spent)",
      ),
    },
    async handler({ deps, principal, params, body }) {
      const row = await verifyContactCode(deps, tenantOf(principal), params.consumerId, params.id, body);
      return { body: { id: row.id, status: 'verified', verified_at: row.verified_at } };
    },
  }),
];
