// Table-driven tests of the receipt rules: RFC 8785 canonical JSON, the v4 hash chain with its approval
// link, the state moves, and both signatures (the Ed25519 one checked by tweetnacl, not node:crypto).
import nacl from 'tweetnacl';
import { canonicalize } from '../../domain/canonical-json';
import { approvalHash, nextLink, verifyChain } from '../../domain/receipts/chain';
import {
  ed25519Matches,
  ed25519Signature,
  generateEd25519,
  hmacMatches,
  hmacSignature,
  privateKeyOf,
  signedMessage,
} from '../../domain/receipts/signatures';
import { applyMove } from '../../domain/receipts/states';

describe('canonical JSON', () => {
  it.each([
    [{ b: 1, a: [true, null, 'x'] }, '{"a":[true,null,"x"],"b":1}'],
    [
      { '\u20ac': 1, '\r': 2, '1': 3, a: { d: 'é', c: '\u2028' } },
      '{"\\r":2,"1":3,"a":{"c":"\u2028","d":"é"},"€":1}',
    ],
    [{ skip: undefined, keep: 0 }, '{"keep":0}'],
    [[], '[]'],
    ['line\nbreak', '"line\\nbreak"'],
  ])('writes %j as %s', (value, text) => {
    expect(canonicalize(value)).toBe(text);
  });

  it.each([[NaN], [Infinity], [10n]])('refuses %s', (value) => {
    expect(() => canonicalize(value)).toThrow();
  });
});

describe('receipt chain v4', () => {
  const bodies = [
    { receipt_id: 'rcpt_1', amount: '100' },
    { receipt_id: 'rcpt_2', amount: '200' },
    { receipt_id: 'rcpt_3', amount: '300' },
  ];
  const approvals = [null, { items_hash: 'a'.repeat(64), batch_hash: 'b'.repeat(64) }, null];
  const build = () => {
    const out: Array<{
      body: unknown;
      approval: (typeof approvals)[number];
      chain: ReturnType<typeof nextLink>;
    }> = [];
    for (let i = 0; i < bodies.length; i++)
      out.push({
        body: bodies[i],
        approval: approvals[i],
        chain: nextLink(out[i - 1]?.chain ?? null, bodies[i], approvals[i]),
      });
    return out;
  };

  it('links each receipt to the one before and seals the approval as its own link', () => {
    const chain = build();
    expect(chain.map((r) => r.chain.seq)).toEqual([1, 2, 3]);
    expect(chain[0].chain.prev_hash).toBeNull();
    expect(chain[1].chain.prev_hash).toBe(chain[0].chain.hash);
    expect(chain[1].chain.approval_hash).toBe(approvalHash(approvals[1]));
    expect(chain[0].chain.approval_hash).toBeNull();
    expect(verifyChain(chain)).toEqual({ ok: true });
  });

  it.each([
    [
      'a changed body',
      (c: ReturnType<typeof build>) => {
        c[1].body = { ...bodies[1], amount: '201' };
      },
      1,
      'body_hash',
    ],
    [
      'a swapped approval',
      (c: ReturnType<typeof build>) => {
        c[1].approval = { items_hash: 'c'.repeat(64), batch_hash: 'b'.repeat(64) };
      },
      1,
      'approval_hash',
    ],
    [
      'a removed approval',
      (c: ReturnType<typeof build>) => {
        c[1].approval = null;
      },
      1,
      'approval_hash',
    ],
    [
      'a dropped receipt',
      (c: ReturnType<typeof build>) => {
        c.splice(1, 1);
      },
      1,
      'prev_hash',
    ],
    [
      'a forged hash',
      (c: ReturnType<typeof build>) => {
        c[2].chain = { ...c[2].chain, hash: '0'.repeat(64) };
      },
      2,
      'hash',
    ],
  ])('detects %s', (_name, tamper, at, reason) => {
    const chain = build();
    tamper(chain);
    expect(verifyChain(chain)).toEqual({ ok: false, at, reason });
  });
});

describe('receipt states', () => {
  it.each([
    ['paid', 'deliver', 'delivered'],
    ['paid', 'exception', 'exception'],
    ['paid', 'void', 'voided'],
    ['delivered', 'exception', 'exception'],
    ['exception', 'exception', 'exception'],
    ['exception', 'void', 'voided'],
    ['delivered', 'deliver', null],
    ['delivered', 'void', null],
    ['exception', 'deliver', null],
    ['voided', 'deliver', null],
    ['voided', 'exception', null],
    ['voided', 'void', null],
  ] as const)('%s + %s → %s', (from, move, to) => {
    expect(applyMove(from, move)).toEqual(to ? { ok: true, to } : { ok: false, from, move });
  });
});

describe('receipt signatures', () => {
  const hash = 'f'.repeat(64);

  it('HMAC signs the domain-separated chain hash and checks in constant time', () => {
    const secret = Buffer.alloc(32, 7);
    const sig = hmacSignature(secret, hash);
    expect(sig).toMatch(/^[0-9a-f]{64}$/);
    expect(hmacMatches(secret, hash, sig)).toBe(true);
    expect(hmacMatches(secret, 'e'.repeat(64), sig)).toBe(false);
    expect(hmacMatches(Buffer.alloc(32, 8), hash, sig)).toBe(false);
    expect(hmacMatches(secret, hash, 'zz')).toBe(false);
  });

  it('an Ed25519 signature made with node:crypto verifies with tweetnacl and fails when tampered', () => {
    const pair = generateEd25519();
    const sig = ed25519Signature(privateKeyOf(pair.privateKeyPkcs8), hash);
    const message = new TextEncoder().encode(signedMessage(hash));
    const publicKey = new Uint8Array(Buffer.from(pair.publicKey, 'base64url'));
    const signature = new Uint8Array(Buffer.from(sig, 'base64url'));
    expect(publicKey).toHaveLength(32);
    expect(nacl.sign.detached.verify(message, signature, publicKey)).toBe(true);
    expect(
      nacl.sign.detached.verify(
        new TextEncoder().encode(signedMessage('e'.repeat(64))),
        signature,
        publicKey,
      ),
    ).toBe(false);
    expect(ed25519Matches(pair.publicKey, hash, sig)).toBe(true);
    expect(ed25519Matches(generateEd25519().publicKey, hash, sig)).toBe(false);
  });
});
