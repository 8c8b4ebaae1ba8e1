// Every mock provider server, keyed by the provider name the gateway's config uses
// (`PROVIDER_<NAME>_URL`). `npm run dev` and the test harness start all of them on loopback.
import { startDevSenderMock } from './otp-dev';
import { startPreludeMock } from './prelude';
import { startResendMock } from './resend';
import { startPixPspMock } from './pix-psp';
import { startTedMock } from './ted-bank';
import { startPaymentsMock } from './payments';
import { startApiKeyMock } from './auth-api-key';
import { startPathSecretMock } from './auth-path-secret';
import { startOAuthMock } from './auth-oauth';
import { startCertMock } from './auth-cert';
import { startHmacMock } from './auth-hmac';
import { startJwtEcdsaMock } from './auth-jwt-ecdsa';
import { startTwoHeaderMock } from './auth-two-header';
import { startCdpMock } from './auth-cdp';
import { startNoneMock } from './auth-none';
import { startBrowserWorkerMock } from './browser-worker';
import { startKycMock } from './kyc';
import { startDdaMock } from './dda';
import { startX402WalletsMock } from './x402-wallets';
import { startMcpUpstreamMock } from './mcp-upstream';
import { startIssuerMock } from './issuer';
import { startPetstoreMock } from './petstore';
import type { RunningMock } from './running-mock';

export type MockStarter = () => Promise<RunningMock>;

export const MOCK_PROVIDERS: Record<string, MockStarter> = {
  otp_dev: () => startDevSenderMock(),
  prelude: () => startPreludeMock().then((mock) => ({ ...mock, url: `${mock.url}/v2` })),
  resend: () => startResendMock(),
  pix_psp: () => startPixPspMock(),
  ted: () => startTedMock(),
  payments: () => startPaymentsMock(),
  dda: () => startDdaMock(),
  // One mock per provider auth type; the catalog's `test_mock` names them. Each checks its injection.
  auth_api_key: () => startApiKeyMock(),
  auth_path_secret: () => startPathSecretMock(),
  auth_oauth: () => startOAuthMock(),
  auth_cert: () => startCertMock(),
  auth_hmac: () => startHmacMock(),
  auth_jwt_ecdsa: () => startJwtEcdsaMock(),
  auth_two_header: () => startTwoHeaderMock(),
  auth_cdp: () => startCdpMock(),
  auth_none: () => startNoneMock(),
  browser_worker: () => startBrowserWorkerMock(),
  kyc: () => startKycMock(),
  x402_wallets: () => startX402WalletsMock(),
  // The card issuer: cards, their display page, and the authorization requests and later messages it sends.
  issuer: () => startIssuerMock(),
  // A tenant's upstream MCP server (tenant tool servers).
  mcp_upstream: () => startMcpUpstreamMock(),
  // The public Swagger Petstore 3.0, serving its own OpenAPI document: a project's generated server.
  petstore: () => startPetstoreMock(),
};

export async function startAllMocks(): Promise<Record<string, RunningMock>> {
  const running: Record<string, RunningMock> = {};
  for (const [name, start] of Object.entries(MOCK_PROVIDERS)) running[name] = await start();
  return running;
}
