// The mandate state machine and the amendment rule, as pure functions. A mandate is `active` until it
// is revoked or expires; both are terminal. An amendment keeps it active and may only narrow it: the
// consumer agreed to the old terms, so anything wider needs a new consent.
import { ApiError } from '../errors';
import type { MandateDocument } from './document';
import { newNonce } from './document';

export type MandateStatus = 'active' | 'revoked' | 'expired';
export type MandateAction = 'revoke' | 'amend';

/** The refusal for acting on a mandate in this state, or null when the action may proceed. */
export function transitionRefusal(
  status: MandateStatus,
  lapsed: boolean,
  action: MandateAction,
): ApiError | null {
  if (status === 'revoked')
    return new ApiError(
      409,
      'mandate_already_revoked',
      `The mandate is revoked; it cannot be ${action === 'revoke' ? 'revoked again' : 'amended'}`,
      { status },
    );
  if (status === 'expired' || lapsed)
    return new ApiError(410, 'mandate_already_expired', 'The mandate has expired', { status: 'expired' });
  return null;
}

export interface AmendmentPatch {
  cap_minor?: number;
  per_tx_cap_minor?: number;
  expires_at?: string;
  merchant_allowlist?: string[];
  withdrawal_allowlist?: string[];
  dda_allowlist?: string[];
}

export type Changes = Record<string, { from: unknown; to: unknown }>;

function widens(field: string, from: unknown, to: unknown, detail: string): ApiError {
  return new ApiError(
    409,
    'invalid_transition',
    `An amendment may only narrow a mandate: ${field} ${detail}; ask the consumer for a new consent instead`,
    {
      field,
      from,
      to,
      reason: 'widens',
    },
  );
}

function sameSet(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  const left = new Set(a ?? []);
  const right = new Set(b ?? []);
  return left.size === right.size && [...left].every((item) => right.has(item));
}

function checkSubset(
  field: string,
  current: string[] | undefined,
  next: string[],
  wildcardAllowed: boolean,
): void {
  const allowed = new Set(current ?? []);
  if (wildcardAllowed && allowed.has('*')) return;
  const added = next.filter((entry) => !allowed.has(entry));
  if (added.length > 0) throw widens(field, current ?? null, next, `would add ${added.join(', ')}`);
}

/**
 * The re-signed document an amendment produces, and what changed. `spentMinor` keeps the cap from
 * dropping below what was already spent; `now` refuses an expiry in the past.
 */
export function planAmendment(
  current: MandateDocument,
  patch: AmendmentPatch,
  context: { spentMinor: bigint; now: Date },
): { document: MandateDocument; changes: Changes } {
  const next: MandateDocument = { ...current };
  const changes: Changes = {};
  const capNow = BigInt(current.cap_minor);
  const perTxNow = BigInt(current.per_tx_cap_minor);

  if (patch.cap_minor !== undefined && BigInt(patch.cap_minor) !== capNow) {
    const cap = BigInt(patch.cap_minor);
    if (cap > capNow) throw widens('cap_minor', current.cap_minor, String(cap), 'would rise');
    if (cap < context.spentMinor) {
      throw new ApiError(
        409,
        'invalid_transition',
        `cap_minor cannot drop below the ${context.spentMinor} already spent`,
        {
          field: 'cap_minor',
          from: current.cap_minor,
          to: String(cap),
          spent_minor: context.spentMinor.toString(),
          reason: 'below_spent',
        },
      );
    }
    next.cap_minor = String(cap);
    changes.cap_minor = { from: current.cap_minor, to: next.cap_minor };
  }
  if (patch.per_tx_cap_minor !== undefined && BigInt(patch.per_tx_cap_minor) !== perTxNow) {
    const perTx = BigInt(patch.per_tx_cap_minor);
    if (perTx > perTxNow)
      throw widens('per_tx_cap_minor', current.per_tx_cap_minor, String(perTx), 'would rise');
    next.per_tx_cap_minor = String(perTx);
    changes.per_tx_cap_minor = { from: current.per_tx_cap_minor, to: next.per_tx_cap_minor };
  }
  if (BigInt(next.per_tx_cap_minor) > BigInt(next.cap_minor)) {
    // Lowering the cap under the per-transaction cap narrows that too, as the consumer would expect.
    changes.per_tx_cap_minor = { from: current.per_tx_cap_minor, to: next.cap_minor };
    next.per_tx_cap_minor = next.cap_minor;
  }
  if (patch.expires_at !== undefined) {
    const expiresAt = new Date(patch.expires_at);
    if (expiresAt.getTime() <= context.now.getTime()) {
      throw new ApiError(400, 'expires_at_in_past', 'expires_at must be in the future', {
        expires_at: patch.expires_at,
      });
    }
    if (expiresAt.getTime() > new Date(current.expires_at).getTime())
      throw widens('expires_at', current.expires_at, expiresAt.toISOString(), 'would be later');
    if (expiresAt.toISOString() !== current.expires_at) {
      next.expires_at = expiresAt.toISOString();
      changes.expires_at = { from: current.expires_at, to: next.expires_at };
    }
  }
  if (
    patch.merchant_allowlist !== undefined &&
    !sameSet(patch.merchant_allowlist, current.merchant_allowlist)
  ) {
    if (patch.merchant_allowlist.includes('*') && !current.merchant_allowlist.includes('*'))
      throw widens(
        'merchant_allowlist',
        current.merchant_allowlist,
        patch.merchant_allowlist,
        'would add the * wildcard',
      );
    checkSubset('merchant_allowlist', current.merchant_allowlist, patch.merchant_allowlist, true);
    next.merchant_allowlist = patch.merchant_allowlist;
    changes.merchant_allowlist = { from: current.merchant_allowlist, to: patch.merchant_allowlist };
  }
  for (const field of ['withdrawal_allowlist', 'dda_allowlist'] as const) {
    const wanted = patch[field];
    if (wanted === undefined || sameSet(wanted, current[field])) continue;
    checkSubset(field, current[field], wanted, false);
    // An emptied list is an absent one: no cash-out, no DDA.
    next[field] = wanted.length > 0 ? wanted : undefined;
    changes[field] = { from: current[field] ?? null, to: wanted.length > 0 ? wanted : null };
  }

  if (Object.keys(changes).length === 0) {
    throw new ApiError(409, 'invalid_transition', 'The amendment changes nothing', { reason: 'no_change' });
  }
  next.revision = current.revision + 1;
  next.nonce = newNonce();
  return { document: next, changes };
}
