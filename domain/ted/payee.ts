// TED destinations: the payee string `ted:<ispb>:<branch>:<account>` a TED spend must present, built
// from its `ted` object and matched against the signed withdrawal allowlist. Parts are upper-case
// alphanumerics; whitespace is the only thing normalized away, so "0001-2" or "abc" never match.

export interface TedDestination {
  bank: string;
  branch: string;
  account: string;
  tax_id?: string;
  name?: string;
  account_type?: string;
  person_type?: string;
  client_finality?: string;
}

export interface TedPayee {
  ispb: string;
  branch: string;
  account: string;
}

export type TedPayeeResult = { ok: true; payee: TedPayee; text: string } | { ok: false; reason: string };

const stripWhitespace = (value: string): string => value.replace(/\s+/g, '');

export function formatTedPayee(payee: TedPayee): string {
  return `ted:${payee.ispb}:${payee.branch}:${payee.account}`;
}

function checkParts(ispb: string, branch: string, account: string): TedPayeeResult {
  if (!/^\d{8}$/.test(ispb)) return { ok: false, reason: 'the bank must be its 8-digit ISPB' };
  if (!/^[0-9A-Z]{1,10}$/.test(branch))
    return { ok: false, reason: 'the branch must be 1..10 upper-case alphanumerics' };
  if (!/^[0-9A-Z]{1,20}$/.test(account))
    return { ok: false, reason: 'the account must be 1..20 upper-case alphanumerics' };
  const payee = { ispb, branch, account };
  return { ok: true, payee, text: formatTedPayee(payee) };
}

/** Reads a `ted:<ispb>:<branch>:<account>` string; whitespace anywhere is dropped, nothing else changes. */
export function parseTedPayee(raw: string): TedPayeeResult {
  const text = stripWhitespace(raw);
  const parts = text.split(':');
  if (parts.length !== 4 || parts[0] !== 'ted')
    return { ok: false, reason: 'a TED payee reads ted:<ispb>:<branch>:<account>' };
  return checkParts(parts[1], parts[2], parts[3]);
}

/** The payee a `ted` destination object stands for. */
export function payeeOfDestination(
  destination: Pick<TedDestination, 'bank' | 'branch' | 'account'>,
): TedPayeeResult {
  return checkParts(
    stripWhitespace(destination.bank),
    stripWhitespace(destination.branch),
    stripWhitespace(destination.account),
  );
}

export type TedAuthorization =
  { ok: true; via: 'withdrawal_allowlist' | 'merchant_allowlist' } | { ok: false };

/**
 * Whether the signed lists authorize money out to this destination. A `*` never does; an explicit entry
 * in the merchant allowlist does only while the project's fallback flag is on.
 */
export function authorizeTedDestination(
  payee: TedPayee,
  lists: { withdrawalAllowlist: readonly string[] | null; merchantAllowlist: readonly string[] },
  merchantFallback: boolean,
): TedAuthorization {
  const target = formatTedPayee(payee);
  const names = (list: readonly string[]) =>
    list.some((entry) => {
      const parsed = parseTedPayee(entry);
      return parsed.ok && parsed.text === target;
    });
  if (lists.withdrawalAllowlist && names(lists.withdrawalAllowlist))
    return { ok: true, via: 'withdrawal_allowlist' };
  if (merchantFallback && names(lists.merchantAllowlist)) return { ok: true, via: 'merchant_allowlist' };
  return { ok: false };
}
