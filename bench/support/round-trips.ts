// Counts PostgreSQL round trips made by this process: every query a pg client sends (slonik's statements,
// and the BEGIN / COMMIT of its transactions) goes through Client.prototype.query.
import { Client } from 'pg';

let sent = 0;
const original = Client.prototype.query;
(Client.prototype as any).query = function counted(this: Client, ...args: unknown[]) {
  sent++;
  return (original as any).apply(this, args);
};

/** Round trips sent so far by every pool and client of this process. */
export const roundTrips = (): number => sent;
