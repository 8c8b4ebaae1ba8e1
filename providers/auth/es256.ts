// ES256 JSON Web Tokens for the jwt_ecdsa and cdp injections: P-256 signatures in JOSE's raw r||s form.
import { createPrivateKey, sign } from 'node:crypto';

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

export function signEs256(
  header: Record<string, unknown>,
  claims: Record<string, unknown>,
  privateKeyPem: string,
): string {
  const input = `${part({ alg: 'ES256', typ: 'JWT', ...header })}.${part(claims)}`;
  const signature = sign('sha256', Buffer.from(input), {
    key: createPrivateKey(privateKeyPem),
    dsaEncoding: 'ieee-p1363',
  });
  return `${input}.${signature.toString('base64url')}`;
}
