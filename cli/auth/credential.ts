// Which credential and base URL a command uses: flags first, then GATEWAY_API_KEY / GATEWAY_BASE_URL
// (for scripts), then the profile. A profile's OAuth access token is refreshed with its refresh token
// once it has expired, and the new pair is stored before the command goes on.
import createClient from 'openapi-fetch';
import type { paths } from '../generated/api';
import { CliError, EXIT, networkError, usageError } from '../exit';
import { profileName, readConfig, updateProfile, type OAuthTokens } from '../config/profiles';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

export interface GlobalOptions {
  apiKey?: string;
  baseUrl?: string;
  profile?: string;
  json?: boolean;
  verbose?: boolean;
}

export interface Target {
  baseUrl: string;
  profile: string;
  /** Resolved lazily: commands that need no credential never read or refresh one. */
  credential(): Promise<string>;
}

const REFRESH_MARGIN_MS = 30_000;

export function resolveTarget(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env): Target {
  const config = readConfig(env);
  const profile = profileName(options.profile, config, env);
  const stored = config.profiles[profile] ?? {};
  const baseUrl = (options.baseUrl ?? env.GATEWAY_BASE_URL ?? stored.base_url ?? DEFAULT_BASE_URL).replace(
    /\/+$/,
    '',
  );
  return {
    baseUrl,
    profile,
    async credential() {
      const key = options.apiKey ?? env.GATEWAY_API_KEY ?? stored.api_key;
      if (key) return key;
      if (stored.oauth) return (await freshTokens(baseUrl, profile, stored.oauth, env)).access_token;
      throw usageError(
        `no credential: pass --api-key, set GATEWAY_API_KEY, or run \`gateway login --profile ${profile}\``,
      );
    },
  };
}

async function freshTokens(
  baseUrl: string,
  profile: string,
  tokens: OAuthTokens,
  env: NodeJS.ProcessEnv,
): Promise<OAuthTokens> {
  if (tokens.expires_at - REFRESH_MARGIN_MS > Date.now()) return tokens;
  if (!tokens.refresh_token)
    throw new CliError(
      EXIT.api,
      `the login of profile ${profile} has expired: run \`gateway login --profile ${profile}\``,
    );
  const client = createClient<paths>({ baseUrl });
  let result;
  try {
    result = await client.POST('/oauth/token', {
      body: { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: tokens.client_id },
    });
  } catch (error) {
    throw networkError(`cannot reach ${baseUrl}: ${(error as Error).message}`);
  }
  if (!result.data) {
    const code = (result.error as { error?: string } | undefined)?.error ?? `HTTP ${result.response.status}`;
    throw new CliError(
      EXIT.api,
      `error: ${code}: refreshing the login of profile ${profile} failed; run \`gateway login --profile ${profile}\``,
    );
  }
  const next = storedTokens(tokens.client_id, result.data);
  updateProfile(profile, (p) => ({ ...p, oauth: next }), env);
  return next;
}

export function storedTokens(
  clientId: string,
  answer: { access_token: string; refresh_token?: string | null; expires_in: number; scope?: string },
): OAuthTokens {
  return {
    client_id: clientId,
    access_token: answer.access_token,
    refresh_token: answer.refresh_token ?? null,
    expires_at: Date.now() + answer.expires_in * 1000,
    scope: answer.scope ?? '',
  };
}
