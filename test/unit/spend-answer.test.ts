// The consumer spend's answer as the API takes it from the engine: which answer the spend stored, read from
// the attempt's row by key; or, from an attempt whose steps ran before answers were handed on that way, the
// whole answer its history carries, sent as it is without a read.
import type { AttemptAnswer } from '../../contracts/attempt';
import type { SpendAnswer, SpendRequest } from '../../contracts/consumer-spend';
import { spendAnswer } from '../../api/consumer-spend-runner';
import type { AppDeps } from '../../api/deps';
import { ApiError } from '../../domain/errors';

const req = { orgId: 'org_a', attemptId: 'att-1' } as SpendRequest;
const whole: SpendAnswer = {
  httpStatus: 502,
  status: 'dispatch_uncertain',
  body: { error: { code: 'psp_dispatch_uncertain' }, attempt_id: 'att-1' },
};

/** Deps whose database answers one row to any read, and counts the reads. */
function withRow(row: Record<string, unknown> | null) {
  const reads: unknown[] = [];
  const deps = {
    db: {
      maybeOne: async (query: unknown) => {
        reads.push(query);
        return row;
      },
    },
  } as unknown as AppDeps;
  return { deps, reads };
}

/** The attempt's row as its read answers it: the body read from the bytes first sent. */
const presented = (status: string, text: string | null, responseStatus: number | null = 200) => ({
  org_id: 'org_a',
  project_id: 'prj_a',
  attempt_id: 'att-1',
  fingerprint: 'f'.repeat(64),
  status,
  caller_attempt: true,
  fresh_owed: false,
  response_status: responseStatus,
  response_body: text === null ? null : (JSON.parse(text) as Record<string, unknown>),
  response_text: text,
});

it('sends a whole answer an older history carries as it is, reading nothing', async () => {
  const { deps, reads } = withRow(null);
  const answer: AttemptAnswer = { status: 'uncertain', detail: 'timed out', answer: whole };
  expect(await spendAnswer(deps, req, Promise.resolve(answer))).toBe(whole);
  expect(reads).toHaveLength(0);
});

it.each([
  ['completed', 200, '{"status":"completed","attempt_id":"att-1","idempotent_replay":false}'],
  ['refused', 422, '{"error":{"code":"insufficient_funds"},"attempt_id":"att-1"}'],
  ['dispatch_uncertain', 502, '{"error":{"code":"psp_dispatch_uncertain"},"attempt_id":"att-1"}'],
])('answers a stored %s answer with the row read once by key', async (status, httpStatus, text) => {
  const { deps, reads } = withRow(presented(status, text, httpStatus));
  const answer: AttemptAnswer = {
    status: 'uncertain',
    detail: 'the outcome is not known yet',
    answer: { stored: status as SpendAnswer['status'] },
  };
  const got = await spendAnswer(deps, req, Promise.resolve(answer));
  expect(got).toEqual({ httpStatus, status, body: JSON.parse(text) });
  // Key for key in the order first sent.
  expect(JSON.stringify(got.body)).toBe(text);
  expect(reads).toHaveLength(1);
});

it.each([
  ['no row', null],
  ['a row still processing', presented('processing', null, null)],
  ['a row with no stored answer', presented('completed', null)],
])('tells the caller to come back when the stored answer cannot be read (%s)', async (_case, row) => {
  const { deps } = withRow(row);
  const answer: AttemptAnswer = {
    status: 'uncertain',
    detail: 'the outcome is not known yet',
    answer: { stored: 'completed' },
  };
  const refusal = await spendAnswer(deps, req, Promise.resolve(answer)).catch((error: unknown) => error);
  expect(refusal).toBeInstanceOf(ApiError);
  expect(refusal).toMatchObject({ status: 409, code: 'attempt_in_progress' });
});

it('tells the caller to come back when the engine has no answer yet', async () => {
  const { deps, reads } = withRow(null);
  const answer: AttemptAnswer = { status: 'uncertain', detail: 'the outcome is not known yet' };
  await expect(spendAnswer(deps, req, Promise.resolve(answer))).rejects.toMatchObject({
    code: 'attempt_in_progress',
  });
  expect(reads).toHaveLength(0);
});
