// A card's spending controls as pure rules: which authorization a control declines, and why. The gateway
// applies them to every authorization request before the wallet's policies and balance are read; the
// periodic sums come from the card's earlier authorizations in UTC calendar windows, as Stripe Issuing's do.
import type { CardControls, LimitInterval } from '../../schema/http/cards';

export type ControlDecline =
  'per_authorization_limit' | 'periodic_limit' | 'merchant_category_blocked' | 'merchant_not_allowed';

export interface AuthorizationFacts {
  amountMinor: bigint;
  categoryCode: string | null;
  merchantId: string | null;
}

/** Whether any limit needs the card's earlier authorizations summed. */
export const needsSpent = (controls: CardControls): boolean =>
  (controls.spending_limits ?? []).some((limit) => limit.interval !== 'per_authorization');

/** The first control the authorization breaks, or null; `spent` is what each interval already counts. */
export function controlDecline(
  controls: CardControls,
  facts: AuthorizationFacts,
  spent: Record<LimitInterval, bigint>,
): ControlDecline | null {
  const limits = controls.spending_limits ?? [];
  for (const limit of limits)
    if (limit.interval === 'per_authorization' && facts.amountMinor > BigInt(limit.amount_minor))
      return 'per_authorization_limit';
  for (const limit of limits)
    if (
      limit.interval !== 'per_authorization' &&
      spent[limit.interval] + facts.amountMinor > BigInt(limit.amount_minor)
    )
      return 'periodic_limit';
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
