// A stored answer's replay made from its text (domain/attempts/answers.ts replayText) is byte for byte the
// replay a decode would make: JSON.stringify({ ...body, idempotent_replay: true }) of the first answer's
// body, for every body a family stores (each status of a consumer spend, wallet execute and paid tool call
// answers) and for text built to mislead a scan (the flag's words inside strings, escapes, nested keys).
import type { AttemptInput, AttemptResult } from '../contracts/attempt';
import type { AuditStep, SpendRequest } from '../contracts/consumer-spend';
import { attemptReply, replayText } from '../domain/attempts/answers';
import { approvalAnswer, refusalAnswer, uncertainAnswer } from '../domain/consumer-payments/answers';

const req = { requestId: 'req_1', attemptId: 'att_1' } as SpendRequest;
const audit: AuditStep[] = [
  { timestamp: '2026-01-01T00:00:00.000Z', step: 'payee', status: 'pass', detail: 'pix key "a\\"b"' },
  {
    timestamp: '2026-01-01T00:00:01.000Z',
    step: 'mandate',
    status: 'fail',
    detail: '"idempotent_replay":false',
  },
];
const policy = { reason: 'over the limit', ruleType: 'amount_cap', ruleId: 'rule_1', ruleName: null };

const spendBodies: Array<[string, Record<string, unknown>]> = [
  [
    'completed outcome',
    {
      status: 'completed',
      requestId: 'req_1',
      attempt_id: 'att_1',
      idempotent_replay: false,
      audit,
      mandate: { id: 'mnd_1', consumer_id: 'con_1', currency: 'BRL', cap_minor: 100_000 },
      payment: { rail: 'pix', amount_minor: 1_050, provider_payment_id: 'pix_1' },
    },
  ],
  [
    'refusal',
    refusalAnswer(req, { status: 422, code: 'insufficient_funds', message: 'No {money} "here"' }, audit).body,
  ],
  [
    'refusal with details naming the flag',
    refusalAnswer(
      req,
      {
        status: 422,
        code: 'psp_refused',
        message: 'refused',
        details: {
          idempotent_replay: false,
          '"idempotent_replay":': ['}', '{', '\\'],
          note: 'ünïcødé \u2028',
        },
      },
      audit,
    ).body,
  ],
  [
    'policy denial',
    refusalAnswer(req, { status: 403, code: 'denied', message: 'denied', policy }, audit).body,
  ],
  [
    'policy hold',
    approvalAnswer(
      req,
      { approvalId: 'apr_1', expiresAt: '2026-01-02T00:00:00.000Z', reason: 'r', policy },
      audit,
    ).body,
  ],
  [
    'cap hold',
    approvalAnswer(
      req,
      { approvalId: 'apr_2', expiresAt: '2026-01-02T00:00:00.000Z', reason: 'per_tx_cap' },
      audit,
    ).body,
  ],
  ['uncertain dispatch', uncertainAnswer(req, audit, 'timeout').body],
];

const wallet = {
  wallet_id: 'wal_1',
  balance_minor: '10',
  currency: 'USD',
} as unknown as AttemptResult['wallet'];
const walletInput = { family: 'wallet_execute', input: { requestId: 'req_2' } } as AttemptInput;
const toolInput = {
  family: 'tool_charge',
  input: { requestId: 'req_3', toolName: 'search', priceMinor: '25', currency: 'USD' },
} as AttemptInput;
const result = (r: Partial<AttemptResult>): AttemptResult =>
  ({ attemptId: 'att_2', status: 'completed', audit, wallet, ...r }) as AttemptResult;

const engineBodies: Array<[string, Record<string, unknown>]> = [
  ['wallet execute completed', attemptReply(walletInput, result({ providerPaymentId: 'pay_1' })).body],
  [
    'wallet execute failed',
    attemptReply(walletInput, result({ status: 'failed', failure: { code: 'x' } } as never)).body,
  ],
  [
    'wallet execute denied',
    attemptReply(walletInput, result({ status: 'denied', denial: policy } as never)).body,
  ],
  [
    'paid tool call completed',
    attemptReply(
      toolInput,
      result({
        split: { tenantShareMinor: '20', feeMinor: '5' },
        output: { text: '{"idempotent_replay":false}' },
      } as never),
    ).body,
  ],
];

const decoded = (body: Record<string, unknown>) => {
  const text = JSON.stringify(body);
  return JSON.stringify({ ...(JSON.parse(text) as Record<string, unknown>), idempotent_replay: true });
};

describe('a stored answer replayed from its text', () => {
  it.each([...spendBodies, ...engineBodies])('is the decoded replay byte for byte: %s', (_name, body) => {
    const text = JSON.stringify(body);
    expect(replayText(text)).toBe(decoded(body));
  });

  it('turns only the top-level flag, and appends it where the body has none', () => {
    const nested = {
      a: { idempotent_replay: false },
      b: ['"idempotent_replay":false'],
      idempotent_replay: false,
    };
    expect(replayText(JSON.stringify(nested))).toBe(decoded(nested));
    expect(replayText('{}')).toBe('{"idempotent_replay":true}');
    expect(replayText('{"a":{"idempotent_replay":false}}')).toBe(
      '{"a":{"idempotent_replay":false},"idempotent_replay":true}',
    );
    expect(replayText('{"idempotent_replay":true,"a":1}')).toBe('{"idempotent_replay":true,"a":1}');
  });

  it('leaves text it cannot turn to a decode', () => {
    expect(replayText('[1,2]')).toBeNull();
    expect(replayText('"text"')).toBeNull();
    expect(replayText('{"idempotent_replay":null}')).toBeNull();
  });
});
