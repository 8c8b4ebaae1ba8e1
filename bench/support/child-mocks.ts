// Starts bench/support/mocks-process.ts and answers its mocks' URLs, with a stop that ends it.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';

export interface ChildMocks {
  urls: Record<string, string>;
  stop(): Promise<void>;
}

export async function startChildMocks(): Promise<ChildMocks> {
  const child = spawn(
    process.execPath,
    [require.resolve('tsx/cli'), path.join(__dirname, 'mocks-process.ts')],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const firstLine = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => {
      lines.close();
      resolve(line);
    });
    child.once('exit', (code) => reject(new Error(`the mocks' process exited (${code}) before listening`)));
  });
  return {
    urls: JSON.parse(firstLine) as Record<string, string>,
    async stop() {
      child.stdin.end();
      await exited;
    },
  };
}
