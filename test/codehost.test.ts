// The inbound code-host webhook always answers 200, as the spec says: a body it cannot read is received
// and reported as not processed, with the reason, so the sender never retries or disables the hook.
import { startGateway, type Gateway } from './support/harness';

let gw: Gateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.stop();
});

const send = (raw: string | Buffer, contentType: string | undefined, event = 'push') =>
  gw.request('POST', '/webhooks/codehost', {
    raw,
    headers: { 'X-Codehost-Event': event, ...(contentType ? { 'Content-Type': contentType } : {}) },
  });

describe('a code-host delivery the gateway cannot read', () => {
  it.each([
    ['malformed JSON', '{"repository": {"full_name": "acme/gateway"', 'application/json', /not valid JSON/],
    ['a text/plain body', 'ref=refs/heads/main', 'text/plain', /Content-Type/],
    ['an XML body', '<push><repo>acme/gateway</repo></push>', 'application/xml', /Content-Type/],
    [
      'a body without a content type',
      '{"repository": {"full_name": "acme/gateway"}}',
      undefined,
      /Content-Type/,
    ],
    [
      'a form whose payload is not JSON',
      'payload=%7Bnot-json',
      'application/x-www-form-urlencoded',
      /payload field is not valid JSON/,
    ],
    [
      'JSON holding a NUL character',
      '{"repository": {"full_name": "acme/\\u0000gateway"}}',
      'application/json',
      /NUL/,
    ],
  ])(
    'answers 200 received but not processed for %s, naming the event and the reason',
    async (_name, raw, contentType, reason) => {
      const answer = await send(raw, contentType);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        received: true,
        event: 'push',
        processed: false,
        reason: expect.stringMatching(reason),
      });
    },
  );

  it('answers 200 for a body over the size cap', async () => {
    const answer = await send(
      JSON.stringify({ filler: 'x'.repeat(gw.config.bodyLimitBytes + 1) }),
      'application/json',
      'workflow_run',
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      received: true,
      event: 'workflow_run',
      processed: false,
      reason: expect.stringMatching(/exceeds/),
    });
  });

  it('names a missing event header as null on an unreadable body', async () => {
    const answer = await gw.request('POST', '/webhooks/codehost', {
      raw: 'not json',
      headers: { 'Content-Type': 'application/json' },
    });
    expect([answer.status, answer.body.event, answer.body.processed]).toEqual([200, null, false]);
  });

  it('still processes a readable delivery after unreadable ones', async () => {
    await send('{', 'application/json');
    const answer = await send(
      JSON.stringify({ repository: { full_name: 'acme/gateway' }, ref: 'refs/heads/main', commits: [] }),
      'application/json',
    );
    expect(answer.body).toEqual({ received: true, event: 'push', repo: 'acme/gateway', processed: true });
  });
});
