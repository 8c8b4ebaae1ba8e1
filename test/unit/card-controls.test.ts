// A card's spending controls as a table: which authorization each control declines, and the over-capture
// tolerance the capture step allows.
import { controlDecline, overCaptureAllowance } from '../../domain/issuer/controls';
import type { CardControls } from '../../schema/http/cards';

const none = { daily: 0n, weekly: 0n, monthly: 0n, all_time: 0n };
const facts = (
  amountMinor: bigint,
  categoryCode: string | null = '5734',
  merchantId: string | null = 'mch_1',
) => ({
  amountMinor,
  categoryCode,
  merchantId,
});

describe('controlDecline', () => {
  it.each<[string, CardControls, ReturnType<typeof facts>, typeof none, string | null]>([
    ['no controls approve', {}, facts(1_000_000n), none, null],
    [
      'a per-authorization limit is inclusive',
      { spending_limits: [{ interval: 'per_authorization', amount_minor: '500' }] },
      facts(500n),
      none,
      null,
    ],
    [
      'one minor unit over the per-authorization limit declines',
      { spending_limits: [{ interval: 'per_authorization', amount_minor: '500' }] },
      facts(501n),
      none,
      'per_authorization_limit',
    ],
    [
      'a daily limit counts what the day already spent',
      { spending_limits: [{ interval: 'daily', amount_minor: '1000' }] },
      facts(300n),
      { ...none, daily: 701n },
      'periodic_limit',
    ],
    [
      'a monthly limit reached exactly approves',
      { spending_limits: [{ interval: 'monthly', amount_minor: '1000' }] },
      facts(300n),
      { ...none, monthly: 700n },
      null,
    ],
    [
      'a blocked category declines',
      { blocked_categories: ['7995'] },
      facts(1n, '7995'),
      none,
      'merchant_category_blocked',
    ],
    [
      'an allowed list declines others',
      { allowed_categories: ['5734'] },
      facts(1n, '5812'),
      none,
      'merchant_category_blocked',
    ],
    [
      'an allowed list declines an unknown category',
      { allowed_categories: ['5734'] },
      facts(1n, null),
      none,
      'merchant_category_blocked',
    ],
    ['an allowed list approves its own', { allowed_categories: ['5734'] }, facts(1n, '5734'), none, null],
    [
      'a merchant allowlist declines others',
      { allowed_merchants: ['mch_2'] },
      facts(1n),
      none,
      'merchant_not_allowed',
    ],
    ['a merchant allowlist approves its own', { allowed_merchants: ['mch_1'] }, facts(1n), none, null],
  ])('%s', (_name, controls, input, spent, expected) => {
    expect(controlDecline(controls, input, spent)).toBe(expected);
  });
});

describe('overCaptureAllowance', () => {
  it.each([
    [100n, 15n],
    [2000n, 300n],
    [7n, 1n],
    [6n, 0n],
  ])('allows %p authorized to be captured %p over', (authorized, allowance) => {
    expect(overCaptureAllowance(authorized)).toBe(allowance);
  });
});
