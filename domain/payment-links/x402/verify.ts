// Local verification of an x402 `exact` EVM payment (an EIP-3009 transferWithAuthorization): the header
// decodes, names this network, asset and recipient, carries exactly the link's amount, is valid now and
// for long enough to settle, and its EIP-712 signature recovers to the payer. Pure: whether the nonce is
// spent and whether the payer holds the funds are asked of the chain by the caller.
import type { PaymentRequirements } from './x402-types';
import { getAddress, isAddress, recoverTypedDataAddress, type Address, type Hex } from 'viem';

export interface VerifiedAuthorization {
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
  signature: Hex;
}

export type X402HeaderVersion = 1 | 2;

export type VerifyOutcome =
  | { ok: true; authorization: VerifiedAuthorization; x402Version: X402HeaderVersion }
  | { ok: false; reason: string; message: string };

/** A settlement needs this long on chain after we accept the authorization. */
export const MIN_VALIDITY_LEFT_SECONDS = 6;

const AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

const refuse = (reason: string, message: string): VerifyOutcome => ({ ok: false, reason, message });
const sameAddress = (a: unknown, b: string) => typeof a === 'string' && a.toLowerCase() === b.toLowerCase();
const DECIMAL = /^[0-9]{1,78}$/;

function decodeHeader(header: string): Record<string, unknown> | null {
  if (header.length > 16_384 || !/^[A-Za-z0-9+/=_-]+$/.test(header)) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(header, 'base64').toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

export async function verifyExactPayment(
  header: string,
  requirements: PaymentRequirements,
  nowSeconds: number,
): Promise<VerifyOutcome> {
  const decoded = decodeHeader(header);
  if (!decoded) return refuse('invalid_payload', 'The payment header is not base64 JSON');
  const version = decoded.x402Version;
  if (version !== 1 && version !== 2) return refuse('invalid_x402_version', 'x402Version must be 1 or 2');
  // v2 echoes the requirement it accepted; v1 names scheme and network at top level.
  const accepted = (version === 2 ? decoded.accepted : decoded) as Record<string, unknown> | undefined;
  if (!accepted || typeof accepted !== 'object') return refuse('invalid_payload', 'accepted is missing');
  if (accepted.scheme !== 'exact') return refuse('unsupported_scheme', 'Only the exact scheme is accepted');
  if (accepted.network !== requirements.network)
    return refuse('invalid_network', `The payment must be on ${requirements.network}`);
  if (
    version === 2 &&
    (!sameAddress(accepted.asset, requirements.asset) || !sameAddress(accepted.payTo, requirements.payTo))
  )
    return refuse('invalid_payment_requirements', 'The accepted requirement is not this link’s');

  const inner = decoded.payload as
    { authorization?: Record<string, unknown>; signature?: unknown } | undefined;
  const a = inner?.authorization;
  const signature = inner?.signature;
  if (
    !a ||
    typeof a.from !== 'string' ||
    !isAddress(a.from, { strict: false }) ||
    typeof a.to !== 'string' ||
    !isAddress(a.to, { strict: false }) ||
    ![a.value, a.validAfter, a.validBefore].every((n) => typeof n === 'string' && DECIMAL.test(n)) ||
    typeof a.nonce !== 'string' ||
    !/^0x[0-9a-fA-F]{64}$/.test(a.nonce) ||
    typeof signature !== 'string' ||
    !/^0x[0-9a-fA-F]{130}$/.test(signature)
  )
    return refuse('invalid_exact_evm_payload', 'The EIP-3009 authorization is malformed');

  const authorization: VerifiedAuthorization = {
    from: getAddress(a.from),
    to: getAddress(a.to),
    value: BigInt(a.value as string),
    validAfter: BigInt(a.validAfter as string),
    validBefore: BigInt(a.validBefore as string),
    nonce: a.nonce.toLowerCase() as Hex,
    signature: signature as Hex,
  };
  if (!sameAddress(authorization.to, requirements.payTo))
    return refuse('invalid_exact_evm_payload_recipient_mismatch', 'The authorization pays someone else');
  if (authorization.value !== BigInt(requirements.amount))
    return refuse(
      'invalid_exact_evm_payload_authorization_value',
      `The authorization must be for exactly ${requirements.amount} atomic units`,
    );
  const now = BigInt(nowSeconds);
  if (authorization.validBefore <= now + BigInt(MIN_VALIDITY_LEFT_SECONDS))
    return refuse('invalid_exact_evm_payload_authorization_valid_before', 'The authorization has expired');
  if (authorization.validAfter > now)
    return refuse(
      'invalid_exact_evm_payload_authorization_valid_after',
      'The authorization is not valid yet',
    );

  const { name, version: domainVersion } = requirements.extra as { name: string; version: string };
  const chainId = Number(requirements.network.split(':')[1]);
  let signer: Address;
  try {
    signer = await recoverTypedDataAddress({
      domain: { name, version: domainVersion, chainId, verifyingContract: getAddress(requirements.asset) },
      types: AUTHORIZATION_TYPES,
      primaryType: 'TransferWithAuthorization',
      message: {
        from: authorization.from,
        to: authorization.to,
        value: authorization.value,
        validAfter: authorization.validAfter,
        validBefore: authorization.validBefore,
        nonce: authorization.nonce,
      },
      signature: authorization.signature,
    });
  } catch {
    return refuse('invalid_exact_evm_payload_signature', 'The signature does not verify');
  }
  if (signer !== authorization.from)
    return refuse('invalid_exact_evm_payload_signature', 'The signature is not the payer’s');
  return { ok: true, authorization, x402Version: version };
}
