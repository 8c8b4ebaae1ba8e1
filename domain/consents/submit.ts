// The consumer's submit: one transaction that consumes the token and writes the funding source, the
// signed mandate, the `grant` consent record and their events. A second submit of the same token waits
// on the row lock, then finds it consumed and writes nothing. Two doors lead here: the API operation,
// where the credential's project must be the token's, and the hosted page, where the token alone is.
import type { DatabasePool } from '../../runtime/database';
import type { ConsentSubmitBody } from '../../schema/http/consents';
import type { KeyRing } from '../crypto/secret-box';
import { recordEvent } from '../events/record';
import { ApiError, notFound } from '../errors';
import { prefixedId } from '../ids';
import type { Tenant } from '../consumers/tenant';
import { findConsumer, insertConsumer, type ConsumerRow } from '../consumers/consumers';
import { insertFundingSource, type FundingSourceRow } from '../consumers/funding-sources';
import { insertConsentRecord, type ConsentRecordRow } from '../mandates/consent-records';
import { buildMandateDocument, compactDocument } from '../mandates/document';
import { insertMandate, type MandateRow } from '../mandates/mandates';
import { currentSigningSecret } from '../mandates/secrets';
import { signDocument } from '../mandates/signature';
import { findConsentByDigest, markConsentConsumed, tenantOf, type ConsentRow } from './consents';
import { railAllowed } from './intent';
import { isConsentToken, tokenDigest } from './tokens';

export interface SubmitResult {
  consent: ConsentRow;
  consumer: ConsumerRow;
  fundingSource: FundingSourceRow;
  mandate: MandateRow;
  record: ConsentRecordRow;
}

export const consentNotFound = (): ApiError => new ApiError(404, 'not_found', 'No consent for this token');

/** Why a token cannot be used, or null when it is pending and within its 24 hours. */
export function tokenRefusal(consent: Pick<ConsentRow, 'status' | 'lapsed' | 'expires_at'>): ApiError | null {
  if (consent.status === 'consumed')
    return new ApiError(
      409,
      'consent_token_consumed',
      'This consent token was already used; a token signs one mandate',
    );
  if (consent.status === 'expired' || consent.lapsed) {
    return new ApiError(410, 'consent_token_expired', 'This consent token expired; ask for a new consent', {
      expired_at: consent.expires_at,
    });
  }
  return null;
}

function checkSurface(consent: ConsentRow, body: ConsentSubmitBody): void {
  if (consent.surface === 'hosted' && body.attestation) {
    throw new ApiError(
      400,
      'attestation_not_allowed',
      'A hosted consent is confirmed on the consent page; it must not carry an attestation',
    );
  }
  if (consent.surface === 'partner') {
    if (!body.attestation)
      throw new ApiError(
        400,
        'attestation_required',
        "A partner consent must carry the partner's attestation of the consumer's confirmation",
      );
    if (!body.consumer_id)
      throw new ApiError(400, 'missing_required_field', 'consumer_id is required on a partner consent', {
        field: 'consumer_id',
      });
  }
  if (body.rail === 'pix-partner' && !body.provider_token) {
    throw new ApiError(
      400,
      'missing_required_field',
      'provider_token is required for a pix-partner funding source',
      { field: 'provider_token' },
    );
  }
  if (!railAllowed(consent.intent, body.rail)) {
    throw new ApiError(409, 'funding_rail_mismatch', `${body.rail} cannot fund ${consent.intent.currency}`, {
      rail: body.rail,
      currency: consent.intent.currency,
    });
  }
}

export async function submitConsent(
  db: DatabasePool,
  ring: KeyRing,
  token: string,
  body: ConsentSubmitBody,
  context: { ipAddress: string | null; tenant?: Tenant },
): Promise<SubmitResult> {
  if (!isConsentToken(token)) throw consentNotFound();
  const caller = context.tenant;
  return db.transaction(async (tx) => {
    const consent = await findConsentByDigest(tx, tokenDigest(token), { forUpdate: true });
    // Another project's token is simply not found: the caller learns nothing about it, not even its state.
    if (!consent || (caller && (consent.org_id !== caller.orgId || consent.project_id !== caller.projectId)))
      throw consentNotFound();
    const refusal = tokenRefusal(consent);
    if (refusal) throw refusal;
    checkSurface(consent, body);
    const tenant = tenantOf(consent);

    let consumer: ConsumerRow;
    if (body.consumer_id) {
      const found = await findConsumer(tx, tenant, body.consumer_id);
      if (!found) throw notFound('Consumer');
      consumer = found;
    } else {
      const metadata: Record<string, unknown> = { created_by: 'consent', consent_id: consent.id };
      if (consent.consumer_email_hint) metadata.email_hint = consent.consumer_email_hint;
      consumer = await insertConsumer(tx, tenant, { displayName: null, metadata });
    }

    const fundingSource = await insertFundingSource(tx, ring, tenant, {
      consumerId: consumer.id,
      consentId: consent.id,
      rail: body.rail,
      currency: consent.intent.currency,
      displayLabel: body.display_label ?? null,
      providerToken: body.provider_token ?? null,
      holderDocument: body.attestation?.holder_document ?? null,
    });

    const secret = await currentSigningSecret(tx, ring);
    const document = compactDocument(
      buildMandateDocument({
        id: prefixedId('mnd', 24),
        orgId: tenant.orgId,
        projectId: tenant.projectId,
        consumerId: consumer.id,
        fundingSourceId: fundingSource.id,
        rail: body.rail,
        agentId: consent.agent_id,
        intent: consent.intent,
        attestation: body.attestation,
        issuedAt: new Date(),
      }),
    );
    const { canonical, signature } = signDocument(secret.secret, document);
    const mandate = await insertMandate(tx, tenant, {
      document,
      canonical,
      signature,
      secretVersion: secret.version,
      consentId: consent.id,
    });

    // The consenting party's address: the browser's on the hosted page, the partner's report of it otherwise.
    const ipAddress =
      consent.surface === 'partner'
        ? (body.attestation?.evidence.ip ?? context.ipAddress)
        : context.ipAddress;
    const record = await insertConsentRecord(
      tx,
      ring,
      tenant,
      {
        consumerId: consumer.id,
        mandateId: mandate.id,
        kind: 'grant',
        agentId: consent.agent_id,
        fundingSourceId: fundingSource.id,
        purpose: consent.intent.purpose,
        currency: consent.intent.currency,
        capMinor: BigInt(consent.intent.cap_minor),
        perTxCapMinor: BigInt(consent.intent.per_tx_cap_minor),
        expiresAt: mandate.expires_at,
        ipAddress,
        metadata: {
          action: 'grant',
          from: 'pending',
          to: 'active',
          surface: consent.surface,
          consent_id: consent.id,
          rail: body.rail,
          ...(body.attestation
            ? {
                attestation_method: body.attestation.method,
                attestation_reference: body.attestation.reference,
              }
            : {}),
        },
        signedAt: new Date(mandate.signed_at),
      },
      secret,
    );
    await markConsentConsumed(tx, consent.id, mandate.id);
    await recordEvent(tx, tenant, 'consent.consumed', {
      consent_id: consent.id,
      mandate_id: mandate.id,
      consumer_id: consumer.id,
      surface: consent.surface,
    });
    await recordEvent(tx, tenant, 'mandate.signed', {
      mandate_id: mandate.id,
      consumer_id: consumer.id,
      agent_id: mandate.agent_id,
      funding_source_id: fundingSource.id,
      consent_record_id: record.id,
      currency: mandate.currency,
      cap_minor: mandate.cap_minor,
      expires_at: mandate.expires_at,
    });
    return {
      consent: { ...consent, status: 'consumed', mandate_id: mandate.id },
      consumer,
      fundingSource,
      mandate,
      record,
    };
  });
}
