// A card authorization decision on the real stack: the issuer's signed real-time request answered by the
// gateway (signature, card lock, attempt claim, controls, policy gate, balance, hold, events, reply) at
// concurrency 32, one card and wallet per client as a fleet of agents spends, beside the bare handler
// (GET /health) sent the same way in the same run. The issuer waits about 2 s; p99 must stay well under it.
import { signIssuerMessage } from '../domain/issuer/webhook-signature';
import { formatResult, machineLine, runLoad } from './support/load';
import { startBenchStack } from './support/stack';

const REQUESTS = Number(process.env.BENCH_CARD_AUTHORIZATIONS ?? 2_000);
const CONCURRENCY = 32;
const WARMUP = 200;

async function main(): Promise<void> {
  const stack = await startBenchStack();
  try {
    const tenant = await stack.createTenant();
    const cards: string[] = [];
    for (let lane = 0; lane < CONCURRENCY; lane++) {
      const wallet = await stack.request('POST', '/v1/wallets', {
        key: tenant.key,
        body: { display_name: `agent ${lane}`, currency: 'BRL' },
      });
      const funded = await stack.request('POST', '/v1/ledger-entries', {
        key: tenant.key,
        body: {
          wallet_id: wallet.body.id,
          org_id: tenant.orgId,
          currency: 'BRL',
          kind: 'fund',
          amount_minor: '100000000',
        },
      });
      const card = await stack.request('POST', '/v1/cards', {
        key: tenant.key,
        body: { wallet_id: wallet.body.id },
      });
      if (funded.status !== 201 || card.status !== 201)
        throw new Error(`setup failed: ${card.status} ${card.text}`);
      cards.push(card.body.card_id);
    }
    const secret = stack.config.issuer.webhookSecret;
    const run = Date.now().toString(36);
    const decide = async (i: number, lane: number): Promise<boolean> => {
      const body = JSON.stringify({
        id: `evt_${run}_${i}`,
        object: 'event',
        type: 'issuing_authorization.request',
        sequence: 1,
        data: {
          object: {
            id: `iauth_${run}_${i}`,
            card: cards[lane],
            amount: 100,
            currency: 'brl',
            merchant_data: { category_code: '5734', name: 'Compute Co', network_id: 'mch_compute' },
          },
        },
      });
      const response = await fetch(`${stack.url}/webhooks/issuer`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'issuer-signature': signIssuerMessage(secret, Math.floor(Date.now() / 1000), body),
        },
        body,
      });
      const answer = (await response.json()) as { approved?: boolean };
      return answer.approved === true;
    };
    const health = async (): Promise<boolean> =>
      (await fetch(`${stack.url}/health`).then(
        (r) => r.arrayBuffer(),
        () => null,
      )) !== null;

    await runLoad('warmup', { total: WARMUP, concurrency: CONCURRENCY }, health);
    await runLoad('warmup', { total: WARMUP, concurrency: CONCURRENCY }, (i, lane) =>
      decide(REQUESTS + i, lane),
    );
    const floor = await runLoad(
      `GET /health (c=${CONCURRENCY}, bare handler)`,
      { total: REQUESTS, concurrency: CONCURRENCY },
      health,
    );
    const decisions = await runLoad(
      `card authorization decision (c=${CONCURRENCY})`,
      { total: REQUESTS, concurrency: CONCURRENCY },
      decide,
    );
    console.log(machineLine());
    console.log(
      `cards: ${CONCURRENCY} cards on ${CONCURRENCY} wallets, each client on its own; every request approved and held`,
    );
    console.log(formatResult(floor));
    console.log(formatResult(decisions));
    console.log(
      `  decision p50 ${(decisions.p50 / floor.p50).toFixed(1)}x the bare handler's, p99 ${decisions.p99.toFixed(1)} ms of the issuer's 2000 ms deadline`,
    );
  } finally {
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
