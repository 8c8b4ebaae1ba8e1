// The rules of a link's Accept list that a schema cannot say: each rail at most once, amounts within the
// rail's decimals and above zero, and a pay_to that names a real destination. Pure: the caller resolves
// anything that needs the database (a provisioned consumer) before or after.
import { z } from 'zod';
import { ApiError } from '../errors';
import { classifyPixKey } from '../pix/pix-key';

/** An Accept as stored and shown: the spec's response shape, read back from a link's row. */
export const acceptRow = z.object({
  rail: z.enum(['x402', 'pix']),
  currency: z.enum(['USDC', 'BRL']),
  amount_atomic: z.string(),
  pay_to: z.string(),
  pay_to_kind: z.enum(['byo', 'provisioned']),
});
export type Accept = z.infer<typeof acceptRow>;
export type Rail = Accept['rail'];

export type AcceptRequest =
  | {
      rail: 'x402';
      amount: string;
      currency: 'USDC';
      pay_to: { kind: 'provisioned' | 'byo'; consumer_id?: string; address?: string };
    }
  | { rail: 'pix'; amount: string; currency: 'BRL'; pix: { key?: string; partner_account?: string } };

const DECIMALS: Record<Rail, number> = { x402: 6, pix: 2 };
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** `12.5` at 2 decimals is 1250; more decimals than the rail carries is refused, never rounded. */
export function toAtomic(amount: string, decimals: number): bigint | null {
  const match = /^([0-9]+)(?:\.([0-9]+))?$/.exec(amount);
  if (!match) return null;
  const fraction = match[2] ?? '';
  if (fraction.length > decimals) return null;
  return BigInt(match[1]) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
}

const invalidPayTo = (index: number, message: string) =>
  new ApiError(400, 'invalid_payto', message, { index });

/** A provisioned x402 accept: its consumer must get a receiving wallet, which the caller provides. */
export interface ProvisionedNeed {
  index: number;
  consumerId: string;
}

export interface NormalizedAccepts {
  accepts: Accept[];
  provisioned: ProvisionedNeed[];
}

export function normalizeAccepts(requested: AcceptRequest[]): NormalizedAccepts {
  const seen = new Set<Rail>();
  const accepts: Accept[] = [];
  const provisioned: ProvisionedNeed[] = [];
  requested.forEach((accept, index) => {
    if (seen.has(accept.rail))
      throw new ApiError(400, 'invalid_rail', `The rail ${accept.rail} appears more than once`, {
        index,
        rail: accept.rail,
      });
    seen.add(accept.rail);
    const atomic = toAtomic(accept.amount, DECIMALS[accept.rail]);
    if (atomic === null || atomic <= 0n) {
      throw new ApiError(
        400,
        'invalid_body',
        `accepts[${index}].amount must be above zero with at most ${DECIMALS[accept.rail]} decimals`,
        {
          issues: [
            {
              path: `/accepts/${index}/amount`,
              message: `greater than zero, at most ${DECIMALS[accept.rail]} decimals`,
            },
          ],
        },
      );
    }
    if (accept.rail === 'x402') {
      if (accept.pay_to.kind === 'byo') {
        if (!accept.pay_to.address || !EVM_ADDRESS.test(accept.pay_to.address))
          throw invalidPayTo(index, 'A byo x402 pay_to needs a 0x EVM address (40 hex digits)');
        accepts.push({
          rail: 'x402',
          currency: 'USDC',
          amount_atomic: atomic.toString(),
          pay_to: accept.pay_to.address,
          pay_to_kind: 'byo',
        });
      } else {
        if (!accept.pay_to.consumer_id)
          throw invalidPayTo(index, 'A provisioned x402 pay_to needs consumer_id');
        provisioned.push({ index, consumerId: accept.pay_to.consumer_id });
        // The address is filled in once the consumer's wallet exists.
        accepts.push({
          rail: 'x402',
          currency: 'USDC',
          amount_atomic: atomic.toString(),
          pay_to: '',
          pay_to_kind: 'provisioned',
        });
      }
      return;
    }
    const { key, partner_account: account } = accept.pix;
    if (key !== undefined && account !== undefined)
      throw invalidPayTo(index, 'A Pix accept names a key or a partner account, not both');
    if (key !== undefined) {
      const classified = classifyPixKey(key);
      if (!classified.ok) throw invalidPayTo(index, `The Pix key is not a DICT key (${classified.reason})`);
      accepts.push({
        rail: 'pix',
        currency: 'BRL',
        amount_atomic: atomic.toString(),
        pay_to: classified.value.key,
        pay_to_kind: 'byo',
      });
    } else if (account !== undefined && account.trim() !== '') {
      accepts.push({
        rail: 'pix',
        currency: 'BRL',
        amount_atomic: atomic.toString(),
        pay_to: account.trim(),
        pay_to_kind: 'provisioned',
      });
    } else {
      throw invalidPayTo(index, 'A Pix accept needs a key or a partner account');
    }
  });
  return { accepts, provisioned };
}
