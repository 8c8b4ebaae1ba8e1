// `gateway profiles …`: named targets (`live`, `test`, …) kept in the config file; listing never
// shows a secret, only which kind of credential a profile holds.
import type { Command } from 'commander';
import { configPath, readConfig, updateProfile, writeConfig } from '../config/profiles';
import { DEFAULT_BASE_URL } from '../auth/credential';
import { usageError } from '../exit';
import { outputMode, printSuccess } from '../output/render';

export function registerProfiles(root: Command): void {
  const profiles = root
    .command('profiles')
    .description('named gateways and credentials, stored 0600 in the config dir');
  profiles
    .command('set <name>')
    .description('create or change a profile')
    .option('--key <apiKey>', 'the API key of this profile (or --key-stdin)')
    .option('--key-stdin', 'read the API key from stdin, keeping it out of the shell history')
    .option('--url <baseUrl>', 'the gateway base URL of this profile')
    .option('--default', 'use this profile when none is named')
    .action(
      async (
        name: string,
        options: { key?: string; keyStdin?: boolean; url?: string; default?: boolean },
      ) => {
        let key = options.key;
        if (options.keyStdin) key = (await readStdin()).trim();
        if (options.url !== undefined && !/^https?:\/\//.test(options.url))
          throw usageError(`--url must be an http(s) URL, not "${options.url}"`);
        updateProfile(name, (p) => ({
          ...p,
          ...(options.url ? { base_url: options.url } : {}),
          ...(key ? { api_key: key, oauth: undefined } : {}),
        }));
        if (options.default) {
          const config = readConfig();
          writeConfig({ ...config, default_profile: name });
        }
        process.stderr.write(`profile ${name} saved in ${configPath()}\n`);
      },
    );
  profiles
    .command('list')
    .description('the profiles, their base URLs and credential kinds (never the secrets)')
    .action((_options: unknown, self: Command) => {
      const config = readConfig();
      const rows = Object.entries(config.profiles).map(([name, p]) => ({
        name,
        default: name === (config.default_profile ?? 'default'),
        base_url: p.base_url ?? DEFAULT_BASE_URL,
        credential: p.api_key ? 'api key' : p.oauth ? `oauth (${p.oauth.scope || 'key scopes'})` : 'none',
      }));
      printSuccess(
        outputMode(self.optsWithGlobals().json as boolean | undefined),
        JSON.stringify({ profiles: rows }),
      );
    });
  profiles
    .command('delete <name>')
    .description('forget a profile and its credential')
    .action((name: string) => {
      const config = readConfig();
      if (!config.profiles[name]) throw usageError(`no profile named ${name}`);
      delete config.profiles[name];
      if (config.default_profile === name) delete config.default_profile;
      writeConfig(config);
    });
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
