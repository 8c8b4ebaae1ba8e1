// What every activity is built with: the database pool, the logger and the settings.
import type { Config } from '../runtime/config';
import type { DatabasePool } from '../runtime/database';
import type { Logger } from '../runtime/logger';

export interface ActivityDeps {
  db: DatabasePool;
  log: Logger;
  config: Config;
}
