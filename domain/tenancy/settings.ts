// Project settings: a fixed catalog of keys, each with a type, bounds and a default. Unknown keys and
// bad values are refused naming the key; PATCH merges, null returns a key to its default, every change is logged.
import { sql } from 'slonik';
import { z } from 'zod';
import type { DatabasePool } from '../../runtime/database';
import { SETTINGS, type SettingSpec } from '../../contracts/project-settings';
import { ApiError, notFound } from '../errors';

export type Settings = Record<string, unknown>;

/** Own keys only: `constructor` or `__proto__` would otherwise find Object.prototype's members. */
function specOf(key: string): SettingSpec | undefined {
  return Object.hasOwn(SETTINGS, key) ? SETTINGS[key] : undefined;
}

function checkValue(key: string, value: unknown): void {
  const spec = specOf(key);
  if (!spec) throw new ApiError(400, 'invalid_body', `Unknown setting "${key}"`, { key });
  const ok =
    spec.type === 'integer'
      ? Number.isInteger(value) && (value as number) >= spec.min && (value as number) <= spec.max
      : spec.type === 'boolean'
        ? typeof value === 'boolean'
        : typeof value === 'string' && spec.enum.includes(value);
  if (!ok) {
    const expected =
      spec.type === 'integer'
        ? `an integer from ${spec.min} to ${spec.max}`
        : spec.type === 'boolean'
          ? 'a boolean'
          : `one of ${spec.enum.join(', ')}`;
    throw new ApiError(400, 'invalid_body', `Setting "${key}" must be ${expected}`, { key });
  }
}

/** Validates a patch against the stored overrides; returns the new overrides and the per-key change list. */
export function checkSettings(
  patch: Record<string, unknown>,
  stored: Settings,
): { settings: Settings; changes: Record<string, { from: unknown; to: unknown }> } {
  const settings: Settings = { ...stored };
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      if (!specOf(key)) throw new ApiError(400, 'invalid_body', `Unknown setting "${key}"`, { key });
      if (key in settings) changes[key] = { from: settings[key], to: null };
      delete settings[key];
      continue;
    }
    checkValue(key, value);
    if (settings[key] !== value) changes[key] = { from: settings[key] ?? null, to: value };
    settings[key] = value;
  }
  return { settings, changes };
}

/** Stored overrides laid over the defaults: what the gateway actually uses. */
export function effectiveSettings(stored: Settings): Settings {
  const out: Settings = {};
  for (const [key, spec] of Object.entries(SETTINGS)) out[key] = key in stored ? stored[key] : spec.default;
  return out;
}

const settingsRow = z.object({ settings: z.record(z.unknown()) });
const historyRow = z.object({
  id: z.bigint(),
  changed_by: z.string(),
  changes: z.record(z.object({ from: z.unknown(), to: z.unknown() })),
  changed_at: z.string(),
});
export type SettingsHistoryRow = z.infer<typeof historyRow>;

export async function readSettings(db: DatabasePool, orgId: string, projectId: string): Promise<Settings> {
  const row = await db.maybeOne(
    sql.type(settingsRow)`SELECT settings FROM projects WHERE org_id = ${orgId} AND id = ${projectId}`,
  );
  if (!row) throw notFound('Project');
  return row.settings;
}

export async function patchSettings(
  db: DatabasePool,
  orgId: string,
  projectId: string,
  patch: Record<string, unknown>,
  changedBy: string,
): Promise<Settings> {
  return db.transaction(async (tx) => {
    const row = await tx.maybeOne(sql.type(settingsRow)`
      SELECT settings FROM projects WHERE org_id = ${orgId} AND id = ${projectId} FOR UPDATE`);
    if (!row) throw notFound('Project');
    const { settings, changes } = checkSettings(patch, row.settings);
    if (Object.keys(changes).length === 0) return settings;
    await tx.query(
      sql.unsafe`UPDATE projects SET settings = ${sql.jsonb(settings as never)} WHERE org_id = ${orgId} AND id = ${projectId}`,
    );
    await tx.query(sql.unsafe`
      INSERT INTO project_settings_history (org_id, project_id, changed_by, changes, settings)
      VALUES (${orgId}, ${projectId}, ${changedBy}, ${sql.jsonb(changes as never)}, ${sql.jsonb(settings as never)})`);
    return settings;
  });
}

export async function settingsHistory(
  db: DatabasePool,
  orgId: string,
  projectId: string,
  limit: number,
): Promise<SettingsHistoryRow[]> {
  const rows = await db.any(sql.type(historyRow)`
    SELECT id, changed_by, changes, changed_at FROM project_settings_history
    WHERE org_id = ${orgId} AND project_id = ${projectId} ORDER BY id DESC LIMIT ${limit}`);
  return [...rows];
}
