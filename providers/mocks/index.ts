// Every mock provider server, keyed by the provider name the gateway's config uses
// (`PROVIDER_<NAME>_URL`). `npm run dev` and the test harness start all of them on loopback.
import { startPaymentsMock } from './payments';

export interface RunningMock {
  url: string;
  stop(): Promise<void>;
}

export type MockStarter = () => Promise<RunningMock>;

export const MOCK_PROVIDERS: Record<string, MockStarter> = {
  payments: () => startPaymentsMock(),
};

export async function startAllMocks(): Promise<Record<string, RunningMock>> {
  const running: Record<string, RunningMock> = {};
  for (const [name, start] of Object.entries(MOCK_PROVIDERS)) running[name] = await start();
  return running;
}
