// The receipt hash chain. Each consumer's receipts form one chain: a receipt's hash commits to its
// sealed body, to the previous receipt's hash and, from chain version 4, to the caller's approval hash
// as a link of its own, so an approval claim cannot be swapped without breaking every later receipt.
import { createHash } from 'node:crypto';
import { canonicalize } from '../canonical-json';

export const CHAIN_VERSION = 4;

export interface SpendApprovalClaim {
  items_hash: string;
  batch_hash: string;
}

export interface ChainLink {
  version: number;
  seq: number;
  prev_hash: string | null;
  approval_hash: string | null;
  body_hash: string;
  hash: string;
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

export function bodyHash(body: unknown): string {
  return sha256(canonicalize(body));
}

/** The approval link: the caller's sealed claim, hashed in canonical form; null when there was none. */
export function approvalHash(approval: SpendApprovalClaim | null | undefined): string | null {
  return approval
    ? sha256(`approval:${canonicalize({ batch_hash: approval.batch_hash, items_hash: approval.items_hash })}`)
    : null;
}

export function linkHash(link: Omit<ChainLink, 'hash'>): string {
  return sha256(
    canonicalize({
      approval_hash: link.approval_hash,
      body_hash: link.body_hash,
      prev_hash: link.prev_hash,
      seq: link.seq,
      version: link.version,
    }),
  );
}

export function nextLink(
  previous: Pick<ChainLink, 'seq' | 'hash'> | null,
  body: unknown,
  approval: SpendApprovalClaim | null | undefined,
): ChainLink {
  const partial = {
    version: CHAIN_VERSION,
    seq: previous ? previous.seq + 1 : 1,
    prev_hash: previous?.hash ?? null,
    approval_hash: approvalHash(approval),
    body_hash: bodyHash(body),
  };
  return { ...partial, hash: linkHash(partial) };
}

/** Checks a run of one consumer's receipts, oldest first: each body hash, each link, each back-pointer. */
export function verifyChain(
  receipts: Array<{ body: unknown; approval: SpendApprovalClaim | null; chain: ChainLink }>,
): { ok: true } | { ok: false; at: number; reason: string } {
  for (let i = 0; i < receipts.length; i++) {
    const { body, approval, chain } = receipts[i];
    if (bodyHash(body) !== chain.body_hash) return { ok: false, at: i, reason: 'body_hash' };
    if (approvalHash(approval) !== chain.approval_hash) return { ok: false, at: i, reason: 'approval_hash' };
    if (linkHash(chain) !== chain.hash) return { ok: false, at: i, reason: 'hash' };
    if (
      i > 0 &&
      (chain.prev_hash !== receipts[i - 1].chain.hash || chain.seq !== receipts[i - 1].chain.seq + 1)
    )
      return { ok: false, at: i, reason: 'prev_hash' };
  }
  return { ok: true };
}
