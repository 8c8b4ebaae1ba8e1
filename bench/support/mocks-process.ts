// The mock providers in a process of their own: a bench's figures for the API and worker process then carry
// none of the other side's CPU, as in production, where the providers are elsewhere. Prints the mocks'
// URLs as one JSON line once they listen, and stops them when its input closes.
import { startAllMocks } from '../../providers/mocks';

async function main(): Promise<void> {
  const mocks = await startAllMocks();
  const urls = Object.fromEntries(Object.entries(mocks).map(([name, mock]) => [name, mock.url]));
  process.stdout.write(`${JSON.stringify(urls)}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => {
    void Promise.all(Object.values(mocks).map((mock) => mock.stop())).then(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
