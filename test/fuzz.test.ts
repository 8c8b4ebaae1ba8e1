// The fuzz tier: schemathesis generates positive and negative requests for every operation of the served
// OpenAPI document and runs them against the real stack with a tenant's key. The run must end with no
// 5xx, every response matching its documented schema and content type, only documented statuses, and the
// document exactly what the server accepts: every request it calls valid accepted, every one it calls
// invalid refused (a missing body or required header included), and each 405's Allow its own methods.
// Bounded (fixed examples per operation, derandomized) so `npm test` stays within a few minutes;
// FUZZ_MAX_EXAMPLES raises the bound for a deeper run by hand.
import { fund, newWallet } from './support/money';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { ensureSchemathesis, runSchemathesis } from './fuzz/schemathesis';

let gw: Gateway;
let tenant: Tenant;
beforeAll(async () => {
  // Installing first: when it cannot be done the file fails with that one line, before any stack starts.
  ensureSchemathesis();
  gw = await startGateway();
  tenant = await gw.createTenant();
  // A funded wallet and a consumer give the id-taking operations something real to reach.
  await fund(gw, tenant, await newWallet(gw, tenant), 100_000);
  await gw.request('POST', '/v1/consumers', { key: tenant.key, body: { display_name: 'Fuzz consumer' } });
}, 180_000);
afterAll(async () => {
  await gw?.stop();
});

it('answers every generated request of every documented operation as the document says: no 5xx, off-schema body, undocumented status, or request accepted or refused against it', async () => {
  const result = await runSchemathesis({
    url: gw.url,
    apiKey: tenant.key,
    maxExamples: Number(process.env.FUZZ_MAX_EXAMPLES ?? 20),
  });
  process.stdout.write(`fuzz: schemathesis ${result.summary}\n${result.failures}`);
  // Warnings (operations whose ids the generated data rarely hits) are coverage notes, not defects: the
  // summary may carry them, never a failure or an error. Each failure is named in a line of its own (the
  // whole text, with the curl line that replays it, is printed above).
  expect({ summary: result.summary, failures: result.headlines }).toEqual({
    summary: expect.stringMatching(/^(No issues found|\d+ warnings?) in /),
    failures: [],
  });
  expect(result.failures).toBe('');
  expect(result.exitCode).toBe(0);
}, 900_000);
