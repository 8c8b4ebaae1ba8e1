// Who may register a document for DDA: the consumer must hold an active partner account and a verified
// document, the document must be that one, and an active mandate must name it in its signed
// `dda_allowlist`. The allowlist is read from the signed canonical text after its signature verifies, so a
// row edited behind the signature authorizes nothing.
import type { CommonQueryMethods } from '../../runtime/database';
import { findConsumer } from '../consumers/consumers';
import { isCnpj, isCpf } from '../consumers/document-number';
import { findActivePartnerAccount } from '../consumers/funding-sources';
import type { Tenant } from '../consumers/tenant';
import type { KeyRing } from '../crypto/secret-box';
import { ApiError } from '../errors';
import { listConsumerMandates } from '../mandates/mandates';
import { signingSecret } from '../mandates/secrets';
import { signatureMatches } from '../mandates/signature';

const invalidDocument = (reason: string) =>
  new ApiError(400, 'invalid_body', `document ${reason}`, {
    issues: [{ path: '/document', message: reason, keyword: 'format' }],
  });

/** A CPF or CNPJ with its punctuation (dots, dashes, slashes, spaces) stripped; check digits must match. */
export function parseDdaDocument(raw: string): string {
  const digits = raw.replace(/[\s./-]/g, '');
  if (!/^\d+$/.test(digits)) throw invalidDocument('must be a CPF or CNPJ: digits and . - / only');
  if (digits.length === 11 && isCpf(digits)) return digits;
  if (digits.length === 14 && isCnpj(digits)) return digits;
  throw invalidDocument('is not a CPF (11 digits) or CNPJ (14 digits) with valid check digits');
}

function signedDdaAllowlist(canonical: string): string[] {
  const document = JSON.parse(canonical) as { dda_allowlist?: unknown };
  return Array.isArray(document.dda_allowlist)
    ? document.dda_allowlist.filter((entry): entry is string => typeof entry === 'string')
    : [];
}

export interface DdaAuthorization {
  /** The allowlist entry that names the document, as signed. */
  document: string;
  mandateId: string;
}

export async function authorizeDdaDocument(
  db: CommonQueryMethods,
  ring: KeyRing,
  tenant: Tenant,
  consumerId: string,
  document: string,
): Promise<DdaAuthorization> {
  const partner = await findActivePartnerAccount(db, tenant, consumerId);
  if (!partner)
    throw new ApiError(
      422,
      'no_partner_account',
      'The consumer has no active partner account in this project',
    );
  const consumer = await findConsumer(db, tenant, consumerId);
  if (!consumer) throw new ApiError(422, 'no_partner_account', 'The consumer has no active partner account');
  if (!consumer.document || !consumer.document_verified_at)
    throw new ApiError(422, 'dda_document_not_owned', 'The account has no verified document yet');
  if (consumer.document !== document)
    throw new ApiError(403, 'dda_document_not_owned', "The document is not the consumer's verified document");

  for (const mandate of await listConsumerMandates(db, tenant, consumerId, 'active')) {
    if (mandate.lapsed) continue;
    const secret = await signingSecret(db, ring, mandate.hmac_secret_version);
    if (!secret || !signatureMatches(secret.secret, mandate.canonical, mandate.signature)) continue;
    const entry = signedDdaAllowlist(mandate.canonical).find((allowed) => allowed === document);
    if (entry) return { document: entry, mandateId: mandate.id };
  }
  throw new ApiError(
    403,
    'dda_document_unauthorized',
    'No active mandate names this document in its signed dda_allowlist',
  );
}
