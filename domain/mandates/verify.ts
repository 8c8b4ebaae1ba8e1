// The one function other areas call to accept a presented mandate: it checks the HMAC signature under
// the secret version that signed it, that the document is the mandate's current revision, that the
// mandate is active and unexpired and belongs to the caller's project, and hands back its terms.
import type { CommonQueryMethods } from '../../runtime/database';
import type { KeyRing } from '../crypto/secret-box';
import { ApiError } from '../errors';
import type { Tenant } from '../consumers/tenant';
import { CanonicalizationError, canonicalize } from '../canonical-json';
import type { MandateDocument } from './document';
import { findMandate, type MandateRow } from './mandates';
import { signingSecret } from './secrets';
import { signatureMatches } from './signature';
import { spentByMandate } from './spends';

export interface PresentedMandate {
  /** The mandate as issued: the signed document object, or its canonical JSON text. */
  mandate: unknown;
  /** 64 hex characters: HMAC-SHA256 over the canonical form. */
  signature: string;
  /** When given, must equal the signed agent_id. */
  agentId?: string;
}

export interface VerifiedMandate {
  mandateId: string;
  consumerId: string;
  agentId: string;
  fundingSourceId: string;
  rail: string;
  purpose: string;
  currency: string;
  capMinor: bigint;
  perTxCapMinor: bigint;
  /** Already spent under this mandate per currency (mandate_spends). */
  spentMinor: Map<string, bigint>;
  merchantAllowlist: string[];
  merchantPinKind: string | null;
  withdrawalAllowlist: string[] | null;
  ddaAllowlist: string[] | null;
  periodicCap: { window: string; capMinor: bigint } | null;
  slots: Array<{ currency: string; rail: string; capMinor: bigint; perTxCapMinor: bigint }>;
  expiresAt: string;
  revision: number;
  hmacSecretVersion: number;
  document: MandateDocument;
}

const invalidSignature = (reason: string) =>
  new ApiError(403, 'mandate_signature_invalid', 'The mandate or its signature does not verify', { reason });

function parsePresented(mandate: unknown): Record<string, unknown> {
  if (typeof mandate === 'string') {
    try {
      return parsePresented(JSON.parse(mandate));
    } catch {
      throw new ApiError(400, 'invalid_body', 'mandate is neither a JSON object nor its canonical text', {
        issues: [{ path: '/mandate', message: 'is not JSON', keyword: 'type' }],
      });
    }
  }
  if (mandate === null || typeof mandate !== 'object' || Array.isArray(mandate)) {
    throw new ApiError(400, 'invalid_body', 'mandate must be an object', {
      issues: [{ path: '/mandate', message: 'must be object', keyword: 'type' }],
    });
  }
  return mandate as Record<string, unknown>;
}

function termsOf(row: MandateRow, spent: Map<string, bigint>): VerifiedMandate {
  const doc = row.document;
  return {
    mandateId: row.id,
    consumerId: row.consumer_id,
    agentId: row.agent_id,
    fundingSourceId: row.funding_source_id,
    rail: doc.rail,
    purpose: row.purpose,
    currency: row.currency,
    capMinor: row.cap_minor,
    perTxCapMinor: row.per_tx_cap_minor,
    spentMinor: spent,
    merchantAllowlist: doc.merchant_allowlist,
    merchantPinKind: doc.merchant_pin_kind ?? null,
    withdrawalAllowlist: doc.withdrawal_allowlist ?? null,
    ddaAllowlist: doc.dda_allowlist ?? null,
    periodicCap: doc.periodic_cap
      ? { window: doc.periodic_cap.window, capMinor: BigInt(doc.periodic_cap.cap_minor) }
      : null,
    slots: (doc.slots ?? []).map((slot) => ({
      currency: slot.currency,
      rail: slot.rail,
      capMinor: BigInt(slot.cap_minor),
      perTxCapMinor: BigInt(slot.per_tx_cap_minor),
    })),
    expiresAt: row.expires_at,
    revision: row.revision,
    hmacSecretVersion: row.hmac_secret_version,
    document: doc,
  };
}

/**
 * Verifies a presented mandate for the caller's project. With `lock: true` (inside a transaction) the
 * mandate row stays locked until commit, so a spend can check its caps and record itself atomically.
 *
 * Refusals: 400 invalid_body (not a mandate), 404 mandate_not_found (unknown or another project's),
 * 403 mandate_signature_invalid (bad signature, tampered or superseded document), 403 agent_mismatch,
 * 409 mandate_not_active (revoked), 410 mandate_already_expired.
 */
export async function verifyPresentedMandate(
  db: CommonQueryMethods,
  ring: KeyRing,
  tenant: Pick<Tenant, 'orgId' | 'projectId'>,
  presented: PresentedMandate,
  options: { lock?: boolean } = {},
): Promise<VerifiedMandate> {
  const document = parsePresented(presented.mandate);
  const id = typeof document.id === 'string' ? document.id : null;
  if (!id) throw new ApiError(404, 'mandate_not_found', 'The mandate has no id');
  const row = await findMandate(db, tenant, id, options.lock ? 'wait' : 'none');
  if (!row) throw new ApiError(404, 'mandate_not_found', 'No such mandate in this project');

  let canonical: string;
  try {
    canonical = canonicalize(document);
  } catch (error) {
    if (error instanceof CanonicalizationError) throw invalidSignature('not_canonicalizable');
    throw error;
  }
  const secret = await signingSecret(db, ring, row.hmac_secret_version);
  if (!secret || !signatureMatches(secret.secret, canonical, presented.signature)) {
    // An older revision was genuinely signed once; say so, it is the caller's most likely mistake.
    const superseded = typeof document.revision === 'number' && document.revision < row.revision;
    throw invalidSignature(superseded ? 'superseded_revision' : 'signature_mismatch');
  }
  if (canonical !== row.canonical) throw invalidSignature('superseded_revision');

  if (presented.agentId !== undefined && presented.agentId !== row.agent_id) {
    throw new ApiError(403, 'agent_mismatch', 'agent_id does not match the agent the mandate was signed for');
  }
  if (row.status === 'revoked')
    throw new ApiError(409, 'mandate_not_active', 'The mandate was revoked', { status: 'revoked' });
  if (row.status === 'expired' || row.lapsed)
    throw new ApiError(410, 'mandate_already_expired', 'The mandate has expired', { status: 'expired' });

  const spent = (await spentByMandate(db, tenant, [row.id])).get(row.id) ?? new Map<string, bigint>();
  return termsOf(row, spent);
}
