// The money a catalog provider tool's call moves, read from the call's own arguments as the tool's catalog
// money block says (domain/providers/catalog.ts): the minor-unit amount, the currency, the recipient. An
// amount or currency the arguments do not give is the caller's mistake, refused before anything is written.
import type { CatalogMoney } from '../providers/catalog';
import { ApiError } from '../errors';
import { isCurrency, type Currency } from '../../contracts/currencies';

/** The largest amount a ledger entry holds: PostgreSQL's bigint. */
const MAX_LEDGER_MINOR = 9_223_372_036_854_775_807n;

/** The value a JSON Pointer names, or undefined when the path does not exist. */
export function atPointer(value: unknown, pointer: string): unknown {
  let at = value;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (at === null || typeof at !== 'object' || Array.isArray(at)) return undefined;
    if (!Object.prototype.hasOwnProperty.call(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

export interface CallMoney {
  amountMinor: bigint;
  currency: Currency;
  recipient: string;
}

const refused = (pointer: string, message: string, keyword: string) =>
  new ApiError(400, 'invalid_body', `/arguments${pointer} ${message}`, {
    issues: [{ path: `/arguments${pointer}`, message, keyword }],
  });

function amountOf(money: CatalogMoney, args: Record<string, unknown>): bigint {
  const { pointer, pattern } = money.amount;
  const value = atPointer(args, pointer);
  let digits: string | null = null;
  if (pattern !== undefined) {
    // The amount is written inside another field (a boleto's line): its capture groups, joined.
    const match = typeof value === 'string' ? new RegExp(pattern).exec(value) : null;
    digits = match
      ? match
          .slice(1)
          .filter((group) => group !== undefined)
          .join('')
      : null;
    if (digits === null) throw refused(pointer, 'does not carry an amount the gateway can read', 'pattern');
  } else if (typeof value === 'string' && /^[0-9]{1,30}$/.test(value)) {
    digits = value;
  } else if (typeof value === 'number' && Number.isSafeInteger(value)) {
    digits = String(value);
  }
  if (digits === null) throw refused(pointer, 'must be an amount in minor units', 'type');
  const minor = BigInt(digits);
  if (minor <= 0n) throw refused(pointer, 'must be a positive amount', 'minimum');
  if (minor > MAX_LEDGER_MINOR)
    throw refused(pointer, `must be at most ${MAX_LEDGER_MINOR} minor units`, 'maximum');
  return minor;
}

function currencyOf(money: CatalogMoney, args: Record<string, unknown>): Currency {
  if ('fixed' in money.currency) {
    if (!isCurrency(money.currency.fixed))
      throw new Error(`catalog currency ${money.currency.fixed} unknown`);
    return money.currency.fixed;
  }
  const value = atPointer(args, money.currency.pointer);
  if (typeof value !== 'string' || !isCurrency(value))
    throw refused(money.currency.pointer, 'is not a currency a wallet holds', 'enum');
  return value;
}

/** The amount, currency and recipient of one call, or a 400 naming the argument that does not give them. */
export function moneyOfCall(money: CatalogMoney, args: Record<string, unknown>): CallMoney {
  const recipient = atPointer(args, money.recipient);
  return {
    amountMinor: amountOf(money, args),
    currency: currencyOf(money, args),
    recipient: typeof recipient === 'string' ? recipient : JSON.stringify(recipient ?? null).slice(0, 200),
  };
}
