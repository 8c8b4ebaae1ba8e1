// What the HTTP layer needs from the process: the database, Temporal, settings and a logger.
import type { Client } from '@temporalio/client';
import type { Config } from '../runtime/config';
import type { DatabasePool } from '../runtime/database';
import type { Logger } from '../runtime/logger';
import type { KeyCache } from './auth/key-cache';

export interface AppDeps {
  db: DatabasePool;
  config: Config;
  temporal: { client: Client; taskQueue: string };
  log: Logger;
  keyCache: KeyCache;
}
