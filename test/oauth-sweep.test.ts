// The OAuth sweep workflow on the time-skipping server with the real worker: expired codes and tokens
// and dead grants go, while everything that can still be used, or that reuse detection still needs, stays.
import { sql } from 'slonik';
import { z } from 'zod';
import { workflowIds } from '../contracts/workflow-ids';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { connect, refresh, sha256Hex } from './support/oauth-flow';

let gw: Gateway;
let tenant: Tenant;
beforeAll(async () => {
  gw = await startGateway();
  tenant = await gw.createTenant();
});
afterAll(async () => {
  await gw?.stop();
});

const exists = async (table: 'oauth_access_tokens' | 'oauth_refresh_tokens', token: string) =>
  gw.db.exists(sql.unsafe`SELECT 1 FROM ${sql.identifier([table])} WHERE token_hash = ${sha256Hex(token)}`);
const grantOf = async (accessToken: string) =>
  gw.db.oneFirst(
    sql.type(
      z.object({ grant_id: z.string() }),
    )`SELECT grant_id FROM oauth_access_tokens WHERE token_hash = ${sha256Hex(accessToken)}`,
  );
const sweep = () =>
  gw.env.client.workflow.execute('oauthCredentialSweep', {
    taskQueue: gw.taskQueue,
    workflowId: `${workflowIds.oauthSweep()}/${Date.now()}`,
    args: [],
  });

it('deletes expired tokens and dead grants, and keeps live ones and the codes reuse detection needs', async () => {
  const live = await connect(gw, tenant.key);
  const aged = await connect(gw, tenant.key);
  const rotated = await refresh(gw, aged.tokens.refresh_token);
  const dead = await connect(gw, tenant.key);
  const deadGrant = await grantOf(dead.tokens.access_token);

  // Age rows past their retention: one access token and one rotated refresh token a day past expiry,
  // one code 31 days past expiry, and a whole grant revoked 31 days ago.
  await gw.db.query(
    sql.unsafe`UPDATE oauth_access_tokens SET expires_at = now() - interval '25 hours' WHERE token_hash = ${sha256Hex(aged.tokens.access_token)}`,
  );
  await gw.db.query(
    sql.unsafe`UPDATE oauth_refresh_tokens SET expires_at = now() - interval '25 hours' WHERE token_hash = ${sha256Hex(aged.tokens.refresh_token)}`,
  );
  await gw.db.query(
    sql.unsafe`UPDATE oauth_authorization_codes SET expires_at = now() - interval '31 days' WHERE code_hash = ${sha256Hex(live.code)}`,
  );
  await gw.db.query(
    sql.unsafe`UPDATE oauth_grants SET created_at = now() - interval '40 days', revoked_at = now() - interval '31 days', revoked_reason = 'refresh_token_reuse' WHERE id = ${deadGrant}`,
  );

  const result = await sweep();
  expect(result).toEqual({
    grants: 1,
    authorization_codes: 1,
    access_tokens: 1,
    refresh_tokens: 1,
    batches: 1,
  });

  expect(await exists('oauth_access_tokens', aged.tokens.access_token)).toBe(false);
  expect(await exists('oauth_refresh_tokens', aged.tokens.refresh_token)).toBe(false);
  expect(await gw.db.exists(sql.unsafe`SELECT 1 FROM oauth_grants WHERE id = ${deadGrant}`)).toBe(false);
  expect(await exists('oauth_access_tokens', dead.tokens.access_token)).toBe(false);
  // Still usable, or still needed to detect a replay:
  expect(await exists('oauth_access_tokens', live.tokens.access_token)).toBe(true);
  expect(await exists('oauth_refresh_tokens', rotated.body.refresh_token)).toBe(true);
  expect(
    await gw.db.exists(
      sql.unsafe`SELECT 1 FROM oauth_authorization_codes WHERE code_hash = ${sha256Hex(aged.code)}`,
    ),
  ).toBe(true);
  expect((await gw.request('GET', '/v1/whoami', { key: live.tokens.access_token })).status).toBe(200);
  expect((await refresh(gw, rotated.body.refresh_token)).status).toBe(200);

  // A second run finds nothing more to do.
  expect(await sweep()).toEqual({
    grants: 0,
    authorization_codes: 0,
    access_tokens: 0,
    refresh_tokens: 0,
    batches: 1,
  });
});
