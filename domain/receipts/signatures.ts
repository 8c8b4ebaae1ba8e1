// The two signatures on a sealed receipt, both over the same message (the chain hash, domain-separated):
// `receipt_sig`, HMAC-SHA256 under the consumer's receipt secret, for the consumer who holds the secret;
// `receipt_sig_ed25519`, under the gateway's published signing key, for anyone verifying offline.
import {
  createHmac,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  timingSafeEqual,
  verify,
  type KeyObject,
} from 'node:crypto';

export function signedMessage(chainHash: string): string {
  return `receipt:v4:${chainHash}`;
}

export function hmacSignature(secret: Buffer, chainHash: string): string {
  return createHmac('sha256', secret).update(signedMessage(chainHash), 'utf8').digest('hex');
}

export function hmacMatches(secret: Buffer, chainHash: string, presented: string): boolean {
  if (!/^[0-9a-f]{64}$/.test(presented)) return false;
  return timingSafeEqual(Buffer.from(hmacSignature(secret, chainHash), 'hex'), Buffer.from(presented, 'hex'));
}

export interface Ed25519Pair {
  /** 32 raw bytes, base64url: the JWK `x` member. */
  publicKey: string;
  /** PKCS#8 DER, base64: stored sealed, never shown. */
  privateKeyPkcs8: string;
}

export function generateEd25519(): Ed25519Pair {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const jwk = publicKey.export({ format: 'jwk' }) as { x: string };
  return {
    publicKey: jwk.x,
    privateKeyPkcs8: (privateKey.export({ format: 'der', type: 'pkcs8' }) as Buffer).toString('base64'),
  };
}

export function privateKeyOf(pkcs8: string): KeyObject {
  return createPrivateKey({ key: Buffer.from(pkcs8, 'base64'), format: 'der', type: 'pkcs8' });
}

export function publicKeyOf(x: string): KeyObject {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
}

/** Base64url Ed25519 signature (64 bytes). */
export function ed25519Signature(privateKey: KeyObject, chainHash: string): string {
  return sign(null, Buffer.from(signedMessage(chainHash), 'utf8'), privateKey).toString('base64url');
}

export function ed25519Matches(publicKeyX: string, chainHash: string, signature: string): boolean {
  try {
    return verify(
      null,
      Buffer.from(signedMessage(chainHash), 'utf8'),
      publicKeyOf(publicKeyX),
      Buffer.from(signature, 'base64url'),
    );
  } catch {
    return false;
  }
}
