// Every mock provider server, keyed by the provider name the gateway's config uses
// (`PROVIDER_<NAME>_URL`). `npm run dev` and the test harness start all of them on loopback.
import { startDevSenderMock } from './otp-dev';
import { startPreludeMock } from './prelude';
import { startResendMock } from './resend';
import { startPixPspMock } from './pix-psp';
import { startTedMock } from './ted-bank';
import { startPaymentsMock } from './payments';

export interface RunningMock {
  url: string;
  stop(): Promise<void>;
}

export type MockStarter = () => Promise<RunningMock>;

export const MOCK_PROVIDERS: Record<string, MockStarter> = {
  otp_dev: () => startDevSenderMock(),
  prelude: () => startPreludeMock().then((mock) => ({ ...mock, url: `${mock.url}/v2` })),
  resend: () => startResendMock(),
  pix_psp: () => startPixPspMock(),
  ted: () => startTedMock(),
  payments: () => startPaymentsMock(),
};

export async function startAllMocks(): Promise<Record<string, RunningMock>> {
  const running: Record<string, RunningMock> = {};
  for (const [name, start] of Object.entries(MOCK_PROVIDERS)) running[name] = await start();
  return running;
}
