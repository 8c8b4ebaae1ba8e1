// Profiles in the user's config dir (`$XDG_CONFIG_HOME/gateway/config.json`, else
// `~/.config/gateway/config.json`): a base URL and either an API key or OAuth tokens per profile.
// The file holds secrets, so it is written 0600 in a 0700 directory, and replaced atomically.
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface OAuthTokens {
  client_id: string;
  access_token: string;
  refresh_token: string | null;
  /** Epoch milliseconds after which the access token is refreshed before use. */
  expires_at: number;
  scope: string;
}

export interface Profile {
  base_url?: string;
  api_key?: string;
  oauth?: OAuthTokens;
}

export interface ConfigFile {
  default_profile?: string;
  profiles: Record<string, Profile>;
}

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith('/')
      ? env.XDG_CONFIG_HOME
      : join(homedir(), '.config');
  return join(base, 'gateway');
}

export const configPath = (env: NodeJS.ProcessEnv = process.env) => join(configDir(env), 'config.json');

export function readConfig(env: NodeJS.ProcessEnv = process.env): ConfigFile {
  let text: string;
  try {
    text = readFileSync(configPath(env), 'utf8');
  } catch {
    return { profiles: {} };
  }
  const parsed = JSON.parse(text) as Partial<ConfigFile>;
  return { default_profile: parsed.default_profile, profiles: parsed.profiles ?? {} };
}

export function writeConfig(config: ConfigFile, env: NodeJS.ProcessEnv = process.env): void {
  const dir = configDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const target = configPath(env);
  const temporary = `${target}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, target);
}

export function profileName(
  requested: string | undefined,
  config: ConfigFile,
  env: NodeJS.ProcessEnv = process.env,
): string {
  return requested ?? env.GATEWAY_PROFILE ?? config.default_profile ?? 'default';
}

export function updateProfile(
  name: string,
  change: (profile: Profile) => Profile,
  env: NodeJS.ProcessEnv = process.env,
): Profile {
  const config = readConfig(env);
  const next = change(config.profiles[name] ?? {});
  config.profiles[name] = next;
  writeConfig(config, env);
  return next;
}
