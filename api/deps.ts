// What the HTTP layer needs from the process: the database, Temporal, settings and a logger.
import type { Orchestrator } from '../orchestration/temporal';
import type { Config } from '../runtime/config';
import type { DatabasePool } from '../runtime/database';
import type { Logger } from '../runtime/logger';
import type { AttemptEndings } from './attempt-endings';
import type { KeyCache } from './auth/key-cache';

export interface AppDeps {
  db: DatabasePool;
  config: Config;
  /** Temporal, reached only through orchestration/ (its typed helpers and use cases). */
  temporal: Orchestrator;
  log: Logger;
  keyCache: KeyCache;
  /** Attempts heard ending, so a wait answers once the outcome is stored; without it the update answers. */
  attemptEndings?: AttemptEndings;
}
