// Meta-tool discovery through HTTP: a structured intent resolved to the connected rail that should carry
// it, alternatives ordered by score with figures computed from the project's own recorded tool calls,
// 424 when nothing connected ships the operation or no connected rail carries it there, 400 for shapes
// and operations it does not know, and free-form intents through the extractor (501 without one, 502
// when it fails), the extractor being a real HTTP mock of an OpenAI-compatible endpoint.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_KEY_SANDBOX } from '../providers/mocks/auth-api-key';
import type { AuthMock } from '../providers/mocks/auth-mock';
import { startGateway, type Gateway, type Tenant } from './support/harness';
import { fund, newWallet } from './support/money';

let gw: Gateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.stop();
});

const discover = (t: Tenant, body: unknown) =>
  gw.request('POST', '/v1/meta-tools/discover', { key: t.key, body });
const connect = async (t: Tenant, slug: string, credentials: Record<string, string>) => {
  const r = await gw.request('POST', `/v1/providers/${slug}/connections`, {
    key: t.key,
    body: { credentials },
  });
  if (r.status !== 201) throw new Error(r.text);
};

describe('a structured intent', () => {
  it('answers eligibility_empty when no connected provider ships the operation, naming what to connect', async () => {
    const t = await gw.createTenant();
    const r = await discover(t, {
      intent: { operation: 'pay', amount_minor: '1000', currency: 'BRL', country: 'BR' },
    });
    expect(r.status).toBe(424);
    expect(r.body.error).toMatchObject({
      code: 'eligibility_empty',
      details: {
        providers: ['pix-psp', 'ted-bank', 'stablecoin-rails'],
        hint: 'POST /v1/providers/pix-psp/connections',
        hints: [
          'POST /v1/providers/pix-psp/connections',
          'POST /v1/providers/ted-bank/connections',
          'POST /v1/providers/stablecoin-rails/connections',
        ],
      },
    });
  });

  it('hints the route that actually connects the bill provider: its OAuth authorization, which answers', async () => {
    const t = await gw.createTenant();
    const r = await discover(t, { intent: { operation: 'pay_bill', amount_minor: '15000' } });
    expect(r.status).toBe(424);
    expect(r.body.error).toMatchObject({
      code: 'eligibility_empty',
      details: { providers: ['dda-hub'], hint: 'POST /v1/providers/dda-hub/oauth/authorize' },
    });
    const [method, path] = r.body.error.details.hint.split(' ');
    const followed = await gw.request(method, path, { key: t.key, body: {} });
    expect(followed.status).toBe(201);
    expect(followed.body.authorize_url).toEqual(expect.any(String));
  });

  it('ranks rails nobody has called yet by the fee the catalog names for the amount, not by their names', async () => {
    const t = await gw.createTenant();
    await connect(t, 'pix-psp', API_KEY_SANDBOX);
    await connect(t, 'stablecoin-rails', (gw.mocks.auth_jwt_ecdsa as unknown as AuthMock).credentials);
    // Pix charges 0.99% of the amount, onchain 40 minor plus 0.1%: Pix is cheaper for small amounts only.
    const small = await discover(t, { intent: { operation: 'pay', amount_minor: '1000' } });
    expect(small.status).toBe(200);
    expect(small.body.recommended).toMatchObject({
      rail: 'pix',
      reasons: expect.arrayContaining([
        'no recorded calls yet: scored on priors',
        'catalog fee 10 minor on 1000',
      ]),
    });
    expect(small.body.alternatives).toEqual([
      expect.objectContaining({ rail: 'onchain', cost_minor: 41, success_rate: null, latency_p50_ms: null }),
    ]);
    const large = await discover(t, { intent: { operation: 'pay', amount_minor: '1000000' } });
    expect(large.body.recommended.rail).toBe('onchain');
    expect(large.body.alternatives).toEqual([expect.objectContaining({ rail: 'pix', cost_minor: 9900 })]);
  });

  it('refuses an operation no tool ships, and bodies of no known shape, with 400', async () => {
    const t = await gw.createTenant();
    const unknown = await discover(t, { intent: { operation: 'teleport' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({
      code: 'unknown_operation',
      details: { detail: expect.stringContaining('pay') },
    });
    for (const body of [
      {},
      { intent: 5 },
      { intent: { amount_minor: '1' } },
      { intent: { operation: 'pay', amount_minor: 12 } },
      { intent: { operation: 'pay' }, extra: 1 },
    ]) {
      const r = await discover(t, body);
      expect([JSON.stringify(body), r.status, r.body.error.code]).toEqual([
        JSON.stringify(body),
        400,
        'invalid_body',
      ]);
      expect(r.body.error.details.issues.length).toBeGreaterThan(0);
    }
  });

  it('recommends the connected rail with the better record and scores the others from their recorded calls', async () => {
    const t = await gw.createTenant();
    await connect(t, 'pix-psp', API_KEY_SANDBOX);
    await connect(t, 'stablecoin-rails', (gw.mocks.auth_jwt_ecdsa as unknown as AuthMock).credentials);
    const session = (await gw.request('POST', '/v1/sessions', { key: t.key, body: { servers: ['gateway'] } }))
      .body.id;
    const funded = await newWallet(gw, t);
    await fund(gw, t, funded, 100_000);
    const empty = await newWallet(gw, t);
    const pay = (wallet: string, method: string, i: number) =>
      gw.request('POST', `/v1/sessions/${session}/tool-calls`, {
        key: t.key,
        body: {
          tool: 'wallet.execute',
          arguments: {
            wallet_id: wallet,
            amount: 5,
            currency: 'BRL',
            recipient: 'r',
            description: 'd',
            mandate_id: 'mdt_test',
            preferred_method: method,
            attempt_id: `disc-${method}-${i}-${Date.now()}`,
          },
        },
      });
    // Pix pays; onchain keeps failing (its wallet is empty).
    for (let i = 0; i < 2; i++) expect((await pay(funded, 'pix', i)).body.status).toBe('success');
    for (let i = 0; i < 2; i++) expect((await pay(empty, 'onchain', i)).body.status).toBe('error');

    const r = await discover(t, { intent: { operation: 'pay', amount_minor: '2500', urgency: 'high' } });
    expect(r.status).toBe(200);
    expect(r.body.recommended).toMatchObject({
      tool: 'wallet.execute',
      rail: 'pix',
      provider_id: 'pix-psp',
      args_template: { preferred_method: 'pix', wallet_id: '<wallet_id>', attempt_id: '<attempt_id>' },
      reasons: expect.arrayContaining([
        expect.stringContaining('2 recorded calls: success rate 1'),
        'urgent: latency weighs more',
      ]),
    });
    expect(r.body.alternatives).toEqual([
      {
        tool: 'wallet.execute',
        rail: 'onchain',
        provider_id: 'stablecoin-rails',
        // The catalog's fee for 2500: 40 fixed plus 0.1%; its failed attempts paid nothing more.
        cost_minor: 43,
        latency_p50_ms: expect.any(Number),
        success_rate: 0,
        reasons: expect.arrayContaining([expect.stringContaining('2 recorded calls: success rate 0')]),
      },
    ]);
    expect(r.body.resolved_intent).toEqual({ operation: 'pay', amount_minor: '2500', urgency: 'high' });

    const collect = await discover(t, { intent: { operation: 'collect', amount_minor: '990' } });
    expect(collect.body).toMatchObject({
      recommended: { tool: 'pix-psp.pix_charge_create', rail: 'pix', args_template: { amount_minor: '990' } },
      alternatives: [],
      resolved_intent: { urgency: 'normal' },
    });

    const blocked = await discover(t, { intent: { operation: 'pay', currency: 'USD', country: 'BR' } });
    expect(blocked.status).toBe(424);
    expect(blocked.body.error).toMatchObject({
      code: 'direction_blocked',
      details: { rails: [{ rail: 'pix' }, { rail: 'onchain' }] },
    });
  });
});

describe('a free-form intent', () => {
  let server: http.Server;
  let next: (res: http.ServerResponse) => void;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => next(res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterEach(() => {
    gw.config.toolClassifier = undefined;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const configure = () => {
    gw.config.toolClassifier = {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      model: 'extractor',
      apiKey: undefined,
      timeoutMs: 500,
    };
  };
  const says = (content: string) => (res: http.ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ choices: [{ message: { content } }] }));
  };

  it('answers 501 when no extractor is wired', async () => {
    const t = await gw.createTenant();
    const r = await discover(t, { intent: 'send 20 reais to Ana by pix' });
    expect(r.status).toBe(501);
    expect(r.body.error.code).toBe('extractor_not_configured');
  });

  it('resolves through the extractor, and answers 502 when it fails or produces nothing', async () => {
    const t = await gw.createTenant();
    await connect(t, 'pix-psp', API_KEY_SANDBOX);
    configure();
    next = says(
      JSON.stringify({
        operation: 'pay',
        amount_minor: '2000',
        currency: 'BRL',
        country: 'BR',
        recipient_kind: 'pix_key',
        junk: 'x',
        urgency: 'whenever',
      }),
    );
    const r = await discover(t, { intent: 'send 20 reais to Ana by pix' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      recommended: { rail: 'pix' },
      resolved_intent: {
        operation: 'pay',
        amount_minor: '2000',
        currency: 'BRL',
        country: 'BR',
        recipient_kind: 'pix_key',
        urgency: 'normal',
      },
    });
    expect(r.body.resolved_intent).not.toHaveProperty('junk');
    for (const failure of [
      (res: http.ServerResponse) => {
        res.writeHead(503);
        res.end();
      },
      says('{}'),
      says('no json'),
    ]) {
      next = failure;
      const failed = await discover(t, { intent: 'send 20 reais to Ana by pix' });
      expect(failed.status).toBe(502);
      expect(failed.body.error.code).toBe('extractor_failed');
    }
  });
});
