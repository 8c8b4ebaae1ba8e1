// Tool search through HTTP: without a classifier a BM25 ranking over tool names, descriptions and schemas
// answers `source: fallback`; a configured OpenAI-compatible classifier (a real HTTP mock here) answers
// `source: llm`, is trusted only for tools that exist, and when it fails or is slow the lexical ranking
// answers instead, still 200.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startGateway, type Gateway, type Tenant } from './support/harness';

let gw: Gateway;
let t: Tenant;
beforeAll(async () => {
  gw = await startGateway({ worker: false });
  t = await gw.createTenant();
});
afterAll(async () => {
  await gw?.stop();
});

const search = (body: unknown, key = t.key) => gw.request('POST', '/v1/tools/search', { key, body });

describe('the lexical ranking', () => {
  afterEach(() => {
    gw.config.toolClassifier = undefined;
  });

  it('ranks the tool whose name and description fit the intent first', async () => {
    const r = await search({ intent: 'create a Pix charge QR code to receive money', limit: 3 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      intent: 'create a Pix charge QR code to receive money',
      source: 'fallback',
    });
    expect(r.body.hits[0]).toMatchObject({
      tool_name: 'pix-psp.pix_charge_create',
      confidence: 1,
      rationale: expect.stringContaining('"charge"'),
    });
    expect(r.body.hits.length).toBeLessThanOrEqual(3);
    expect(Number.isInteger(r.body.elapsed_ms)).toBe(true);
    const balances = await search({ intent: 'how much is left in my wallet balance' });
    expect(balances.body.hits[0].tool_name).toBe('wallet.balances');
    for (const hit of [...r.body.hits, ...balances.body.hits]) {
      expect(hit.confidence).toBeGreaterThan(0);
      expect(hit.confidence).toBeLessThanOrEqual(1);
    }
  });

  it('reads input schemas too: a field name finds its tool', async () => {
    // `expires_in_s` is a field of pix_charge_create's input schema and appears in no name or description.
    const r = await search({ intent: 'expires' });
    expect(r.body.hits[0]).toMatchObject({
      tool_name: 'pix-psp.pix_charge_create',
      rationale: 'Matched "expires" in schema',
    });
  });

  it('answers at most five hits whatever the limit, and none for words no tool has', async () => {
    const many = await search({
      intent: 'pix boleto wallet payment transfer charge statement account',
      limit: 50,
    });
    expect(many.body.hits).toHaveLength(5);
    // Sorted by confidence, highest first (it weighs the score by how much of the intent matched).
    const confidences = many.body.hits.map((h: { confidence: number }) => h.confidence);
    expect(confidences).toEqual([...confidences].sort((a, b) => b - a));
    const none = await search({ intent: 'zzqxv wqpz' });
    expect(none.status).toBe(200);
    expect(none.body.hits).toEqual([]);
  });

  it('refuses a missing intent or a bad limit with 400', async () => {
    for (const body of [
      {},
      { intent: '' },
      { intent: 'pix', limit: 0 },
      { intent: 'pix', limit: 'two' },
      { intent: 'pix', extra: true },
    ]) {
      const r = await search(body);
      expect([JSON.stringify(body), r.status, r.body.error.code]).toEqual([
        JSON.stringify(body),
        400,
        'invalid_body',
      ]);
    }
  });

  it('needs servers:read', async () => {
    const { key } = await gw.createKey(t.projectId, { scopes: ['sessions:read'] });
    expect((await search({ intent: 'pix' }, key)).status).toBe(403);
  });
});

describe('with a classifier configured', () => {
  let server: http.Server;
  let url: string;
  let next: (body: Record<string, unknown>, res: http.ServerResponse) => void;
  const seen: Array<{ headers: http.IncomingHttpHeaders; body: Record<string, unknown> }> = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>;
        seen.push({ headers: req.headers, body });
        next(body, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  beforeEach(() => {
    gw.config.toolClassifier = { url, model: 'router-small', apiKey: 'sk-classifier-test', timeoutMs: 300 };
  });
  afterEach(() => {
    gw.config.toolClassifier = undefined;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const answer = (content: unknown) => (_body: Record<string, unknown>, res: http.ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        choices: [
          {
            message: {
              role: 'assistant',
              content: typeof content === 'string' ? content : JSON.stringify(content),
            },
          },
        ],
      }),
    );
  };

  it("answers with the classifier's hits, keeping only tools that exist, sorted by confidence", async () => {
    next = answer({
      hits: [
        { tool_name: 'wallet.execute', confidence: 0.92, rationale: 'The agent wants to pay.' },
        { tool_name: 'made.up', confidence: 0.9, rationale: 'x' },
        { tool_name: 'wallet.balances', confidence: 7, rationale: 'Check funds first.' },
      ],
    });
    const r = await search({ intent: 'pay the supplier 120 reais', limit: 2 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      source: 'llm',
      hits: [
        { tool_name: 'wallet.balances', confidence: 1, rationale: 'Check funds first.' },
        { tool_name: 'wallet.execute', confidence: 0.92, rationale: 'The agent wants to pay.' },
      ],
    });
    const request = seen[seen.length - 1];
    expect(request.headers.authorization).toBe('Bearer sk-classifier-test');
    expect(request.body).toMatchObject({ model: 'router-small' });
    expect(JSON.stringify(request.body.messages)).toContain('pix-psp.pix_key_lookup');
    expect(JSON.stringify(request.body.messages)).toContain('pay the supplier 120 reais');
  });

  it('keeps the likeliest hits when the classifier lists them late, and ties in its own order', async () => {
    next = answer({
      hits: [
        { tool_name: 'approvals.status', confidence: 0.2, rationale: 'a' },
        { tool_name: 'wallet.transfer', confidence: 0.6, rationale: 'b' },
        { tool_name: 'wallet.balances', confidence: 0.6, rationale: 'c' },
        { tool_name: 'wallet.execute', confidence: 0.9, rationale: 'd' },
      ],
    });
    const r = await search({ intent: 'move money between my wallets', limit: 3 });
    expect(r.body.source).toBe('llm');
    expect(r.body.hits.map((h: { tool_name: string }) => h.tool_name)).toEqual([
      'wallet.execute',
      'wallet.transfer',
      'wallet.balances',
    ]);
  });

  it('falls back to the lexical ranking, still 200, when the classifier errs, talks nonsense or is too slow', async () => {
    const failures: Array<typeof next> = [
      (_b, res) => {
        res.writeHead(500);
        res.end('overloaded');
      },
      answer('not json at all'),
      answer({ hits: [{ tool_name: 'nothing.real', confidence: 1 }] }),
      (_b, res) => {
        setTimeout(() => answer({ hits: [] })(_b, res), 2_000);
      },
    ];
    for (const failure of failures) {
      next = failure;
      const r = await search({ intent: 'create a pix charge' });
      expect(r.status).toBe(200);
      expect(r.body.source).toBe('fallback');
      expect(r.body.hits[0].tool_name).toBe('pix-psp.pix_charge_create');
    }
  });
});
