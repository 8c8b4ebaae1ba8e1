// HMAC-SHA256 mandate signatures over the canonical form: stable under member reordering, broken by
// any change to a signed value, tied to the secret version that made them.
import { randomBytes } from 'node:crypto';
import { canonicalize } from '../domain/canonical-json';
import { signDocument, signatureMatches } from '../domain/mandates/signature';
import { forAll, type Random } from './support/property';

function mandate(random: Random): Record<string, unknown> {
  return {
    id: `mnd_${random.int(1, 1e9)}`,
    nonce: randomBytes(16).toString('hex'),
    scope: `org_${random.int(1, 99)}/prj_${random.int(1, 99)}/cns_${random.int(1, 99)}`,
    agent_id: random.pick(['agent-1', 'assistente-ção', 'агент', '代理人', '🤖']),
    currency: random.pick(['BRL', 'USD', 'USDC']),
    cap_minor: String(random.int(1, 1e12)),
    per_tx_cap_minor: String(random.int(1, 1e6)),
    merchant_allowlist: random.bool() ? ['*'] : ['loja.example', 'café.example'],
    dda_allowlist: ['52998224725'],
    expires_at: new Date(random.int(1e12, 2e12)).toISOString(),
    revision: random.int(1, 5),
    ratio: random.next(),
  };
}

function mutate(random: Random, doc: Record<string, unknown>): Record<string, unknown> {
  const copy = JSON.parse(JSON.stringify(doc)) as Record<string, unknown>;
  const key = random.pick(Object.keys(copy));
  const current = copy[key];
  // Code-point-wise, so dropping the last character of an emoji does not leave half a surrogate pair.
  if (typeof current === 'string')
    copy[key] =
      current.length > 0 && random.bool() ? Array.from(current).slice(0, -1).join('') : `${current}x`;
  else if (typeof current === 'number') copy[key] = current + (Number.isInteger(current) ? 1 : 1e-9);
  else if (Array.isArray(current)) copy[key] = [...current, 'extra'];
  else copy[key] = null;
  return copy;
}

describe('mandate signatures', () => {
  const v1 = randomBytes(32);
  const v2 = randomBytes(32);

  it('are 64 lowercase hex characters and verify for the document they sign', () => {
    forAll('sign and verify', 300, (random) => {
      const doc = mandate(random);
      const { canonical, signature } = signDocument(v1, doc);
      expect(signature).toMatch(/^[0-9a-f]{64}$/);
      expect(signatureMatches(v1, canonical, signature)).toBe(true);
    });
  });

  it('still verify after the members are reordered, since the canonical form is the same', () => {
    forAll('reordered', 300, (random) => {
      const doc = mandate(random);
      const { signature } = signDocument(v1, doc);
      const reordered = Object.fromEntries(random.shuffle(Object.entries(doc)));
      expect(signatureMatches(v1, canonicalize(reordered), signature)).toBe(true);
    });
  });

  it('fail when any signed value changes', () => {
    forAll('tampered', 500, (random) => {
      const doc = mandate(random);
      const { signature } = signDocument(v1, doc);
      const tampered = mutate(random, doc);
      expect(signatureMatches(v1, canonicalize(tampered), signature)).toBe(false);
    });
  });

  it('fail under another secret version, and for any signature that is not 64 hex characters', () => {
    forAll('wrong secret', 200, (random) => {
      const { canonical, signature } = signDocument(v1, mandate(random));
      expect(signatureMatches(v2, canonical, signature)).toBe(false);
      expect(signatureMatches(v1, canonical, signature.slice(0, 63))).toBe(false);
      expect(signatureMatches(v1, canonical, `${signature}0`)).toBe(false);
      expect(signatureMatches(v1, canonical, signature.replace(/^./, 'g'))).toBe(false);
    });
  });
});
