// The spec's input rules for delivery routes: `limit` clamped to 1..200 with unparsable text falling
// back to 50, and delivery ids that are positive integers of 1 to 19 digits.
import { ApiError } from '../errors';

export const DELIVERY_LIMIT = { min: 1, max: 200, fallback: 50 } as const;
const INT8_MAX = 9_223_372_036_854_775_807n;

export function clampDeliveryLimit(raw: unknown): number {
  const text = Array.isArray(raw) ? raw[0] : raw;
  if (typeof text !== 'string' || !/^\s*[-+]?\d+\s*$/.test(text)) return DELIVERY_LIMIT.fallback;
  const value = Number(text.trim());
  if (!Number.isFinite(value)) return DELIVERY_LIMIT.fallback;
  return Math.min(DELIVERY_LIMIT.max, Math.max(DELIVERY_LIMIT.min, value));
}

/** A delivery id as the bigint it names, or `invalid_delivery_id`; ids past int8 can exist nowhere, so they are null. */
export function parseDeliveryId(raw: string): bigint | null {
  if (!/^\d{1,19}$/.test(raw) || /^0+$/.test(raw)) {
    throw new ApiError(
      400,
      'invalid_delivery_id',
      'delivery_id must be a positive integer of 1 to 19 digits',
      { delivery_id: raw },
    );
  }
  const value = BigInt(raw);
  return value > INT8_MAX ? null : value;
}
