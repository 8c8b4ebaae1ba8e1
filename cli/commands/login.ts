// `gateway login`: the OAuth 2.1 flow the gateway serves. It registers a public client for a loopback
// redirect on 127.0.0.1, opens (or prints) the consent page where the person pastes an API key, takes
// the code on the loopback receiver, redeems it with the PKCE verifier, and stores the tokens 0600.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import { resolveTarget, storedTokens, type GlobalOptions } from '../auth/credential';
import { configPath, readConfig, updateProfile, writeConfig } from '../config/profiles';
import { CliError, EXIT } from '../exit';
import { apiClient, reach } from '../http/client';

const base64url = (bytes: Buffer) => bytes.toString('base64url');

interface Callback {
  code?: string;
  error?: string;
}

/** Waits for the browser to land on the loopback redirect with this login's state. */
function receiveCallback(server: Server, state: string): Promise<Callback> {
  return new Promise((resolve) => {
    server.on('request', (req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname !== '/callback' || url.searchParams.get('state') !== state) {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not this login');
        return;
      }
      const error = url.searchParams.get('error') ?? undefined;
      const message = error
        ? 'The gateway was not authorized. You can close this window.'
        : 'The gateway CLI is logged in. You can close this window.';
      res
        .writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', Connection: 'close' })
        .end(`<!doctype html><title>gateway login</title><p>${message}</p>`);
      resolve({ code: url.searchParams.get('code') ?? undefined, error });
    });
  });
}

function openBrowser(url: string): void {
  const opener =
    process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  try {
    const child = spawn(opener, [url], { detached: true, stdio: 'ignore' });
    child.on('error', () => undefined); // no opener: the printed URL is enough
    child.unref();
  } catch {
    /* the URL is printed */
  }
}

export function registerLogin(root: Command): void {
  root
    .command('login')
    .description('log in through the browser (OAuth 2.1 with PKCE) and store the tokens in the profile')
    .option('--scope <scopes>', 'space-separated scopes to ask for (default: those of the pasted key)')
    .option('--no-browser', 'only print the URL to open')
    .action(async (options: { scope?: string; browser: boolean }, self: Command) => {
      const globals = self.optsWithGlobals() as GlobalOptions;
      const target = resolveTarget(globals);
      const client = apiClient({ baseUrl: target.baseUrl, verbose: globals.verbose });
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
        const registered = await reach(target.baseUrl, () =>
          client.POST('/oauth/register', {
            body: {
              client_name: 'gateway CLI',
              redirect_uris: [redirectUri],
              grant_types: ['authorization_code', 'refresh_token'],
              response_types: ['code'],
              token_endpoint_auth_method: 'none',
            },
          }),
        );
        if (!registered.data)
          throw new CliError(
            EXIT.api,
            `error: ${(registered.error as { error?: string })?.error ?? registered.response.status}: the gateway refused to register the CLI`,
          );
        const clientId = registered.data.client_id;
        const verifier = base64url(randomBytes(48));
        const state = base64url(randomBytes(16));
        const authorize = new URL('/oauth/authorize', `${target.baseUrl}/`);
        authorize.search = new URLSearchParams({
          response_type: 'code',
          client_id: clientId,
          redirect_uri: redirectUri,
          state,
          code_challenge: base64url(createHash('sha256').update(verifier).digest()),
          code_challenge_method: 'S256',
          ...(options.scope ? { scope: options.scope } : {}),
        }).toString();
        const landed = receiveCallback(server, state);
        process.stderr.write(
          `Open this URL to authorize the gateway CLI, then paste an API key on the page:\n${authorize.toString()}\n`,
        );
        if (options.browser) openBrowser(authorize.toString());
        const callback = await landed;
        if (!callback.code)
          throw new CliError(EXIT.api, `error: ${callback.error ?? 'no_code'}: the login was not authorized`);
        const code = callback.code;
        const issued = await reach(target.baseUrl, () =>
          client.POST('/oauth/token', {
            body: {
              grant_type: 'authorization_code',
              code,
              code_verifier: verifier,
              redirect_uri: redirectUri,
              client_id: clientId,
            },
          }),
        );
        if (!issued.data)
          throw new CliError(
            EXIT.api,
            `error: ${(issued.error as { error?: string })?.error ?? issued.response.status}: the code could not be redeemed`,
          );
        const tokens = storedTokens(clientId, issued.data);
        // An API key in the profile would win over the tokens; logging in replaces it.
        updateProfile(target.profile, (p) => ({ base_url: p.base_url ?? target.baseUrl, oauth: tokens }));
        const config = readConfig();
        if (!config.default_profile) writeConfig({ ...config, default_profile: target.profile });
        process.stderr.write(
          `Logged in: profile ${target.profile} (${tokens.scope || "the key's scopes"}) saved in ${configPath()}\n`,
        );
      } finally {
        server.closeAllConnections();
        server.close();
      }
    });
  root
    .command('logout')
    .description('forget the tokens of the profile')
    .action((_options: unknown, self: Command) => {
      const target = resolveTarget(self.optsWithGlobals() as GlobalOptions);
      updateProfile(target.profile, (p) => ({ ...p, oauth: undefined }));
      process.stderr.write(`Logged out of profile ${target.profile}\n`);
    });
}
