// ES256 token checking for the jwt_ecdsa and cdp mocks: split, verify the P-256 signature (JOSE's
// raw r||s form), and hand back header and claims. Each mock makes its own sandbox key pair at start.
import { generateKeyPairSync, verify, type KeyObject } from 'node:crypto';

export interface CheckedToken {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
}

export function sandboxKeyPair(): { privatePem: string; publicKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), publicKey };
}

/** The token's parts when its ES256 signature verifies under `publicKey`; a refusal string otherwise. */
export function checkEs256(authorization: string | undefined, publicKey: KeyObject): CheckedToken | string {
  const match = /^Bearer ([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(authorization ?? '');
  if (!match) return 'Missing or malformed bearer token';
  let header: Record<string, unknown>;
  let claims: Record<string, unknown>;
  try {
    header = JSON.parse(Buffer.from(match[1], 'base64url').toString('utf8'));
    claims = JSON.parse(Buffer.from(match[2], 'base64url').toString('utf8'));
  } catch {
    return 'Token is not valid JSON';
  }
  if (header.alg !== 'ES256') return 'Token must be signed with ES256';
  const ok = verify(
    'sha256',
    Buffer.from(`${match[1]}.${match[2]}`),
    { key: publicKey, dsaEncoding: 'ieee-p1363' },
    Buffer.from(match[3], 'base64url'),
  );
  return ok ? { header, claims } : 'Token signature is invalid';
}
