// The statements this process sends to PostgreSQL while an action runs: every query a pg client sends
// (slonik's statements, and the BEGIN / COMMIT of its transactions) goes through Client.prototype.query.
import { Client } from 'pg';

/** The text of each statement sent while `action` runs, in the order sent. */
export async function statementsSent(action: () => Promise<unknown>): Promise<string[]> {
  const original = Client.prototype.query;
  const seen: string[] = [];
  Client.prototype.query = function (this: Client, ...args: unknown[]) {
    seen.push(
      typeof args[0] === 'string' ? args[0] : ((args[0] as { text?: string } | undefined)?.text ?? '?'),
    );
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  try {
    await action();
  } finally {
    Client.prototype.query = original;
  }
  return seen;
}
