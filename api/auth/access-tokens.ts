// OAuth access tokens presented as bearer credentials. Filled in by the OAuth module: until an
// access-token store exists, no token other than keys and the service credential authenticates.
import type { AppDeps } from '../deps';
import type { Principal } from '../principal';

export async function resolveAccessToken(_deps: AppDeps, _token: string): Promise<Principal | null> {
  return null;
}
