// The tenant every consumer-area query is scoped by: an organization, one of its projects, and the
// project's environment (which picks mock or live providers).
import type { Environment } from '../tenancy/api-key-format';

export interface Tenant {
  orgId: string;
  projectId: string;
  environment: Environment;
}
