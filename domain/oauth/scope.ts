// OAuth scope strings: space-separated names from the key scope vocabulary (contracts/scopes.ts).
// A grant never carries the `*` wildcard: a wildcard key may grant any listed scope, and a restricted
// key only what it holds, so an OAuth token is always a restricted credential, and never wider than
// what the client asked for.
import { GRANTABLE_SCOPES, isScope, WILDCARD, type Scope } from '../../contracts/scopes';
import { OAuthError } from './errors';

/** Sorted into the vocabulary's order, without duplicates, so equal grants print equally. */
export function canonicalScopes(scopes: Iterable<string>): Scope[] {
  const set = new Set(scopes);
  return GRANTABLE_SCOPES.filter((scope) => set.has(scope));
}

export function formatScope(scopes: readonly string[]): string {
  return canonicalScopes(scopes).join(' ');
}

/**
 * The scopes a request names; null when it names none (the grant then takes what the pasted key holds).
 * An unknown name is `invalid_scope`.
 */
export function parseScope(raw: string | undefined | null): Scope[] | null {
  const names = (raw ?? '').split(' ').filter((name) => name !== '');
  if (names.length === 0) return null;
  const unknown = [...new Set(names.filter((name) => !isScope(name)))];
  if (unknown.length > 0) {
    throw new OAuthError(
      'invalid_scope',
      `Unknown scope ${unknown.map((name) => `"${name}"`).join(', ')}; grantable scopes: ${GRANTABLE_SCOPES.join(' ')}`,
    );
  }
  return canonicalScopes(names);
}

/** What a key may grant: every listed scope for a wildcard key, else its own listed scopes. */
export function grantableBy(keyScopes: readonly string[]): Scope[] {
  return keyScopes.includes(WILDCARD) ? [...GRANTABLE_SCOPES] : canonicalScopes(keyScopes);
}

/**
 * The scopes a grant holds: those requested that the key can grant (RFC 6749 §3.3 lets the server
 * narrow a request; the token answer's `scope` says what was granted). A stock MCP client asks for
 * what its resource's challenge or metadata names, so a narrow key still connects with what it holds;
 * only a request the key can grant none of is `invalid_scope`.
 */
export function grantScopes(requested: readonly Scope[] | null, keyScopes: readonly string[]): Scope[] {
  const allowed = grantableBy(keyScopes);
  if (requested === null) {
    if (allowed.length === 0)
      throw new OAuthError('invalid_scope', 'This key holds no scope that can be granted');
    return allowed;
  }
  const granted = requested.filter((scope) => allowed.includes(scope));
  if (granted.length === 0)
    throw new OAuthError(
      'invalid_scope',
      `This key cannot grant ${requested.join(' ')}: it holds none of the requested scopes, and a grant carries only scopes of the key it is made with`,
    );
  return granted;
}

/** The scopes a token acts with: its own, narrowed to what the key still holds. */
export function effectiveScopes(tokenScopes: readonly string[], keyScopes: readonly string[]): Scope[] {
  const allowed = grantableBy(keyScopes);
  return canonicalScopes(tokenScopes).filter((scope) => allowed.includes(scope));
}
