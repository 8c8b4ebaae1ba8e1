// Pure checks a spend passes before anything is claimed or started: payee parsing per rail (Pix key or
// BR Code with carrier_* codes, TED payee against its destination), the approval claim's shape, the
// quote timestamp, attempt_id rules, and the request fingerprint a replay must match.
import { createHash } from 'node:crypto';
import { ApiError } from '../errors';
import { resolvePixPayee } from '../pix/payee';
import { canonicalize } from '../canonical-json';
import { parseTedPayee, payeeOfDestination } from '../ted/payee';
import { APPROVAL_HASH, type SpendBodyValues } from '../../schema/http/consumer-payments';
import type { AuditStep, SpendRequest } from '../../contracts/consumer-spend';

export type PreparedPayee = Pick<SpendRequest, 'rail' | 'payeeCanonical' | 'pix' | 'ted'>;

const HASH = new RegExp(APPROVAL_HASH);
// RFC 3339 date-time with a mandatory offset (Z or ±hh:mm).
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|([+-])(\d{2}):(\d{2}))$/;

export function checkApproval(approval: SpendBodyValues['approval']): void {
  if (!approval) return;
  for (const field of ['items_hash', 'batch_hash'] as const) {
    if (!HASH.test(approval[field])) {
      throw new ApiError(
        400,
        'invalid_approval_hash',
        `approval.${field} must be a lower-case hex SHA-256 digest (64 characters, optional sha256: prefix)`,
        { field: `approval.${field}` },
      );
    }
  }
}

/** Valid when it is RFC 3339 with an offset, a real calendar instant, and its UTC year is 0001..9999. */
export function isReceiptTimestamp(text: string): boolean {
  const m = RFC3339.exec(text);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number);
  if (year < 1 || month < 1 || month > 12 || hour > 23 || minute > 59 || second > 60) return false;
  const daysInMonth =
    new Date(Date.UTC(2000, month, 0)).getUTCDate() +
    (month === 2 && !(year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) ? -1 : 0);
  if (day < 1 || day > daysInMonth) return false;
  if (m[9] && (Number(m[10]) > 23 || Number(m[11]) > 59)) return false;
  const offsetMinutes = m[9] ? (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11])) : 0;
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(hour, minute - offsetMinutes, Math.min(second, 59));
  const utcYear = utc.getUTCFullYear();
  return utcYear >= 1 && utcYear <= 9999;
}

export function checkQuote(quote: SpendBodyValues['quote']): void {
  if (quote?.at !== undefined && !isReceiptTimestamp(quote.at)) {
    throw new ApiError(
      400,
      'invalid_receipt_timestamp',
      'quote.at must be an RFC 3339 timestamp with an offset, UTC years 0001-9999',
      { field: 'quote.at' },
    );
  }
}

/** TED needs attempt_id and a payee equal to its destination; Pix needs a valid key or BR Code. */
export function preparePayee(
  body: Pick<SpendBodyValues, 'payee' | 'ted' | 'attempt_id' | 'amount_minor'>,
  audit: AuditStep[],
): PreparedPayee {
  const now = new Date().toISOString();
  if (body.ted) {
    if (!body.attempt_id)
      throw new ApiError(
        400,
        'attempt_id_required',
        'A TED spend must carry an attempt_id, so a retry can never send twice',
      );
    const presented = parseTedPayee(body.payee);
    const destination = payeeOfDestination(body.ted);
    if (!destination.ok)
      throw new ApiError(400, 'invalid_ted_destination', `ted: ${destination.reason}`, {
        reason: destination.reason,
      });
    if (!presented.ok || presented.text !== destination.text) {
      throw new ApiError(
        400,
        'invalid_ted_payee',
        'payee must equal ted:<ispb>:<branch>:<account> of the ted destination (upper-case alphanumerics; only whitespace is normalized)',
        { expected: destination.text },
      );
    }
    audit.push({
      timestamp: now,
      step: 'payee',
      status: 'pass',
      detail: `TED destination ${destination.text}`,
    });
    const t = body.ted;
    return {
      rail: 'ted',
      payeeCanonical: destination.text,
      pix: null,
      ted: {
        ...destination.payee,
        taxId: t.tax_id ?? null,
        name: t.name ?? null,
        accountType: t.account_type ?? null,
        personType: t.person_type ?? null,
        clientFinality: t.client_finality ?? null,
      },
    };
  }
  const resolved = resolvePixPayee(body.payee);
  if (!resolved.ok) throw new ApiError(422, resolved.code, resolved.detail);
  const { payee } = resolved;
  if (
    payee.kind === 'brcode' &&
    payee.brcode.amountMinor !== null &&
    payee.brcode.amountMinor !== BigInt(body.amount_minor)
  ) {
    throw new ApiError(
      422,
      'carrier_amount_mismatch',
      `The BR Code fixes ${payee.brcode.amountMinor} centavos; amount_minor is ${body.amount_minor}`,
      {
        code_amount_minor: payee.brcode.amountMinor.toString(),
        amount_minor: String(body.amount_minor),
      },
    );
  }
  audit.push({
    timestamp: now,
    step: 'payee',
    status: 'pass',
    detail:
      payee.kind === 'brcode'
        ? `BR Code checked (CRC ${payee.brcode.crc}), Pix key ${payee.key.type}`
        : `Pix key ${payee.key.type}`,
  });
  return {
    rail: 'pix',
    // A pasted code is its own payee (its txid and amount matter); a key is named by type and value.
    payeeCanonical: payee.kind === 'brcode' ? body.payee.trim() : `pix:${payee.key.type}:${payee.key.key}`,
    pix: {
      key: payee.key.key,
      keyType: payee.key.type,
      txid: payee.kind === 'brcode' ? payee.brcode.txid : null,
      merchantName: payee.kind === 'brcode' ? payee.brcode.merchantName : null,
      codeAmountMinor:
        payee.kind === 'brcode' && payee.brcode.amountMinor !== null
          ? payee.brcode.amountMinor.toString()
          : null,
    },
    ted: null,
  };
}

/** The id a presented mandate names, without trusting anything else in it yet. */
export function presentedMandateId(mandate: unknown): string | null {
  let doc = mandate;
  if (typeof doc === 'string') {
    try {
      doc = JSON.parse(doc);
    } catch {
      return null;
    }
  }
  return doc && typeof doc === 'object' && typeof (doc as { id?: unknown }).id === 'string'
    ? (doc as { id: string }).id
    : null;
}

/**
 * What a replay must match (Rule 1): amount, payee, mandate, rail, the service quoted (seller, resource,
 * price) and the approval claim. Anything else may differ between presentations.
 */
export function spendFingerprint(input: {
  amountMinor: string;
  payeeCanonical: string;
  mandateId: string;
  rail: string;
  quote: SpendBodyValues['quote'] | null;
  approval: SpendBodyValues['approval'] | null;
}): string {
  const service = input.quote
    ? {
        seller: input.quote.seller ?? null,
        resource: input.quote.resource ?? null,
        price_minor: input.quote.price_minor ?? null,
      }
    : null;
  const approval = input.approval
    ? { items_hash: input.approval.items_hash, batch_hash: input.approval.batch_hash }
    : null;
  const text = canonicalize({
    amount_minor: input.amountMinor,
    approval,
    mandate_id: input.mandateId,
    payee: input.payeeCanonical,
    rail: input.rail,
    service,
  });
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export function dispatchKeyOf(orgId: string, attemptId: string): string {
  return `cspend_${createHash('sha256').update(`${orgId}/${attemptId}`, 'utf8').digest('hex').slice(0, 40)}`;
}
