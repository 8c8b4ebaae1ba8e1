// A card's spending controls as pure rules: which authorization a control declines, and why. The gateway
// applies them to every authorization request before the wallet's policies and balance are read; the
// periodic sums come from the card's earlier authorizations in UTC calendar windows, as Stripe Issuing's do.
export const LIMIT_INTERVALS = ['daily', 'weekly', 'monthly', 'all_time'] as const;
export type LimitInterval = (typeof LIMIT_INTERVALS)[number];

/** As stored and as the API shows it: amounts in minor units as decimal strings. */
export interface CardControls {
  per_authorization_minor?: string;
  limits?: Array<{ interval: LimitInterval; amount_minor: string }>;
  /** Merchant category codes (ISO 18245 MCC, four digits) the card may pay; absent: any. */
  allowed_categories?: string[];
  blocked_categories?: string[];
  /** Merchant network ids the card may pay; absent: any. */
  allowed_merchants?: string[];
}

export type ControlDecline =
  'per_authorization_limit' | 'periodic_limit' | 'merchant_category_blocked' | 'merchant_not_allowed';

export interface AuthorizationFacts {
  amountMinor: bigint;
  categoryCode: string | null;
  merchantId: string | null;
}

/** The first control the authorization breaks, or null; `spent` is what each interval already counts. */
export function controlDecline(
  controls: CardControls,
  facts: AuthorizationFacts,
  spent: Record<LimitInterval, bigint>,
): ControlDecline | null {
  if (
    controls.per_authorization_minor !== undefined &&
    facts.amountMinor > BigInt(controls.per_authorization_minor)
  )
    return 'per_authorization_limit';
  for (const limit of controls.limits ?? [])
    if (spent[limit.interval] + facts.amountMinor > BigInt(limit.amount_minor)) return 'periodic_limit';
  const category = facts.categoryCode;
  if (controls.allowed_categories && (category === null || !controls.allowed_categories.includes(category)))
    return 'merchant_category_blocked';
  if (category !== null && controls.blocked_categories?.includes(category))
    return 'merchant_category_blocked';
  if (
    controls.allowed_merchants &&
    (facts.merchantId === null || !controls.allowed_merchants.includes(facts.merchantId))
  )
    return 'merchant_not_allowed';
  return null;
}

/**
 * The network's tolerance for a capture above its authorization (tips, fuel, currency swings): up to 15%
 * of the authorized amount is captured; anything beyond it is recorded as unfunded, never taken.
 */
export const OVER_CAPTURE_TOLERANCE_PERCENT = 15n;

export function overCaptureAllowance(authorizedMinor: bigint): bigint {
  return (authorizedMinor * OVER_CAPTURE_TOLERANCE_PERCENT) / 100n;
}
