// Records the SQL text of every statement this process sends (slonik's, and the BEGIN / COMMIT of its
// transactions) while a recording is open: what one attempt costs PostgreSQL, statement by statement.
import { Client } from 'pg';

let recording: string[] | null = null;
const original = Client.prototype.query;
(Client.prototype as any).query = function recorded(this: Client, ...args: unknown[]) {
  if (recording) {
    const first = args[0] as string | { text?: string };
    const text = typeof first === 'string' ? first : (first?.text ?? String(first));
    recording.push(text.replace(/\s+/g, ' ').trim());
  }
  return (original as any).apply(this, args);
};

/** The statements sent while `run` ran, in order. */
export async function statementsOf(run: () => Promise<unknown>): Promise<string[]> {
  recording = [];
  try {
    await run();
    return recording;
  } finally {
    recording = null;
  }
}
