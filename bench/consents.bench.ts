// Consents and mandates on the real stack (temporal server start-dev, a real worker, PostgreSQL):
// canonicalize-and-sign against plain JSON + HMAC; mandate verification and the consent flow (create,
// then submit) against GET /v1/whoami as the baseline of the same request chain; contact verification
// start + verify through the dev sender. Figures are printed; nothing here asserts a timing.
import { createHmac, randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { canonicalize } from '../domain/canonical-json';
import type { DevSenderMock } from '../providers/mocks/otp-dev';
import { startBenchStack } from './support/stack';
import { formatResult, machineLine, runLoad, type LoadResult } from './support/load';
import { spawnLoad } from './support/spawn-load';

const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const HTTP_TOTAL = Math.round(4_000 * SCALE);
const FLOW_TOTAL = Math.round(400 * SCALE);
const CONCURRENCY = 16;

function signingBench(): { canonical: number; plain: number } {
  const secret = randomBytes(32);
  const document = {
    version: 1,
    id: 'mnd_0123456789abcdefghijklmn',
    revision: 1,
    nonce: randomBytes(16).toString('hex'),
    scope: 'org_x/prj_y/cns_z',
    agent_id: 'agent-7',
    consumer_id: 'cns_z',
    funding_source_id: 'cfs_w',
    rail: 'pix-consent',
    purpose: 'Weekly groceries',
    currency: 'BRL',
    cap_minor: '50000',
    per_tx_cap_minor: '10000',
    merchant_allowlist: ['loja.example', 'feira.example'],
    dda_allowlist: ['52998224725'],
    shipping: {
      name: 'Ana Souza',
      address: { line1: 'Rua A, 10', city: 'São Paulo', postal_code: '01000-000', country: 'BR' },
    },
    issued_at: new Date().toISOString(),
    expires_at: new Date(Date.now() + 86_400_000).toISOString(),
  };
  const rounds = Math.round(50_000 * SCALE);
  const time = (fn: () => string) => {
    for (let i = 0; i < 2_000; i++) fn();
    const started = performance.now();
    for (let i = 0; i < rounds; i++) fn();
    return rounds / ((performance.now() - started) / 1000);
  };
  const plain = time(() => createHmac('sha256', secret).update(JSON.stringify(document)).digest('hex'));
  const canonical = time(() => createHmac('sha256', secret).update(canonicalize(document)).digest('hex'));
  return { canonical, plain };
}

async function main(): Promise<void> {
  const signing = signingBench();
  const stack = await startBenchStack({ mocksInProcess: true });
  const tenant = await stack.createTenant();
  const auth = { Authorization: `Bearer ${tenant.key}`, 'Content-Type': 'application/json' };
  const intent = {
    purpose: 'Bench',
    cap_minor: 1_000_000,
    per_tx_cap_minor: 10_000,
    currency: 'BRL',
    mandate_ttl_seconds: 86_400,
  };
  const post = async (path: string, body: unknown, headers: Record<string, string> = auth) => {
    const response = await fetch(`${stack.url}${path}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };
  const consent = async () =>
    (await post('/v1/consents', { agent_id: 'agent-7', intent })).body.token as string;

  // One signed mandate to verify over and over.
  const signed = (await post(`/v1/consents/${await consent()}/submit`, {})).body;

  const results: LoadResult[] = [];
  results.push(
    await spawnLoad({
      label: 'GET /v1/whoami (baseline)',
      url: `${stack.url}/v1/whoami`,
      headers: auth,
      total: HTTP_TOTAL,
      concurrency: CONCURRENCY,
      warmup: 500,
    }),
  );
  results.push(
    await spawnLoad({
      label: 'POST /v1/mandates/verify',
      url: `${stack.url}/v1/mandates/verify`,
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ mandate: signed.mandate, signature: signed.signature }),
      total: HTTP_TOTAL,
      concurrency: CONCURRENCY,
      warmup: 500,
    }),
  );
  results.push(
    await spawnLoad({
      label: 'POST /v1/consents (row + workflow start)',
      url: `${stack.url}/v1/consents`,
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ agent_id: 'agent-7', intent }),
      total: FLOW_TOTAL * 2,
      concurrency: CONCURRENCY,
      warmup: 50,
    }),
  );

  // Submit needs a fresh token each time: mint them first, then measure the submits alone.
  const tokens: string[] = [];
  for (let i = 0; i < FLOW_TOTAL; i++) tokens.push(await consent());
  results.push(
    await runLoad(
      'POST /v1/consents/{token}/submit (sign + signal)',
      { total: FLOW_TOTAL, concurrency: CONCURRENCY },
      async (i) => (await post(`/v1/consents/${tokens[i]}/submit`, {})).status === 201,
    ),
  );

  // Contact verification: every send is its own contact of a consumer holding a partner account.
  const dev = stack.mocks.otp_dev as DevSenderMock;
  const consumers: string[] = [];
  const verifications = Math.round(150 * SCALE);
  for (let i = 0; i < Math.min(verifications, 20); i++) {
    const consumer = (await post('/v1/consumers', { display_name: `Bench ${i}` })).body.id as string;
    const token = (await post('/v1/consents', { agent_id: 'agent-7', intent, surface: 'partner' })).body
      .token as string;
    await post(`/v1/consents/${token}/submit`, {
      consumer_id: consumer,
      rail: 'pix-partner',
      provider_token: `tok_${randomBytes(8).toString('hex')}`,
      attestation: {
        method: 'partner_session',
        asserted_at: 1_767_225_600,
        reference: `r${i}`,
        evidence: {},
      },
    });
    consumers.push(consumer);
  }
  results.push(
    await runLoad(
      'contact verification start + verify (dev)',
      { total: verifications, concurrency: 8 },
      async (i) => {
        const consumer = consumers[i % consumers.length];
        const target = `bench.${i}.${randomBytes(3).toString('hex')}@example.com`;
        const started = await post(`/v1/consumers/${consumer}/contact-verifications`, {
          channel: 'email',
          target,
        });
        if (started.status !== 201) return false;
        const verified = await post(
          `/v1/consumers/${consumer}/contact-verifications/${started.body.id}/verify`,
          { code: dev.latestCode(target) },
        );
        return verified.status === 200;
      },
    ),
  );

  console.log(machineLine());
  console.log(
    `consents: HTTP loads from a child process at concurrency ${CONCURRENCY}; submits and contact checks driven in-process`,
  );
  console.log(
    `canonical JSON + HMAC-SHA256 sign ${signing.canonical.toFixed(0)} ops/s vs JSON.stringify + HMAC ${signing.plain.toFixed(0)} ops/s (ratio ${(signing.canonical / signing.plain).toFixed(2)})`,
  );
  for (const result of results) console.log(formatResult(result));
  const baseline = results[0];
  for (const result of results.slice(1))
    console.log(`${result.label}: p50 ${(result.p50 / baseline.p50).toFixed(1)}x the whoami baseline`);
  await stack.stop();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
