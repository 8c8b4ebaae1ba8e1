// What every mock provider's start function answers: where it listens, and how to stop it.
export interface RunningMock {
  url: string;
  stop(): Promise<void>;
}
