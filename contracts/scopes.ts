// The scopes a restricted key can carry (spec: Authentication 4). `*` is the wildcard of unrestricted keys.
export const SCOPES = [
  'sessions:create',
  'sessions:read',
  'tools:execute',
  'servers:read',
  'projects:settings',
  'proxy:execute',
  'consents:write',
] as const;

export type Scope = (typeof SCOPES)[number];
export const WILDCARD = '*';

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/**
 * Enforced on its route but never listed on a restricted key (spec: Authentication 4), so only an
 * unrestricted key, or an OAuth grant made with one, can send raw requests with stored credentials.
 */
export const KEY_UNGRANTABLE_SCOPES: readonly Scope[] = ['proxy:execute'];

/** What an OAuth grant may name: every listed scope in the vocabulary's order, never the wildcard. */
export const GRANTABLE_SCOPES: readonly Scope[] = [...SCOPES];
