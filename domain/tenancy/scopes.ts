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
