// An attempt's result as its HTTP answer, for every family of the engine: the one place a domain result
// becomes a status and a body (GatewayPaymentResult, with the policy-denial fields when a rule denied or
// held it, and a paid tool call's charge; a consumer spend's SpendOutcome or refusal, which it words and
// stores itself in the transaction that reaches it, domain/consumer-payments). Pure: the worker stores the
// answer with the result, the API answers with it, and an approval's replay records it.
import type {
  AttemptAnswer,
  AttemptInput,
  AttemptReply,
  AttemptResult,
  FamilyAnswer,
} from '../../contracts/attempt';

/** The answer's status word: the contract spells a held attempt `requires-approval`. */
const STATUS_WORDS = {
  completed: 'completed',
  failed: 'failed',
  denied: 'denied',
  requires_approval: 'requires-approval',
} as const;

/** What each family adds to the common body, after the wallet steps. */
function familyFields(attempt: AttemptInput, r: AttemptResult): Record<string, unknown> {
  if (attempt.family === 'wallet_execute')
    return r.status === 'completed' ? { payment: { provider_payment_id: r.providerPaymentId } } : {};
  // A consumer spend words its own answer (domain/consumer-payments); a card authorization's is the
  // issuer's reply, stored when it was decided (domain/issuer).
  if (attempt.family !== 'tool_charge') return {};
  const { input } = attempt;
  const charge = { tool: input.toolName, price_minor: input.priceMinor, currency: input.currency };
  if (r.status !== 'completed') return { charge };
  // The settled charge keeps its place in the body, with the split beside the price.
  return {
    charge: { ...charge, tenant_share_minor: r.split?.tenantShareMinor, fee_minor: r.split?.feeMinor },
    output: r.output,
  };
}

/**
 * The answer of a family that stores its own (a consumer spend): which one it stored, for the result or
 * while the outcome is uncertain (a consumer spend's psp_dispatch_uncertain), read from the attempt's row
 * by whoever answers; null when it has none yet.
 */
export function familyAnswer(answer: AttemptAnswer): FamilyAnswer | null {
  return answer.answer ?? null;
}

export function attemptReply(attempt: AttemptInput, r: AttemptResult): AttemptReply {
  if (r.answer) {
    // A stored answer is read from the attempt's row (familyAnswer); only histories recorded before carry it whole.
    if ('stored' in r.answer)
      throw new TypeError(`The ${r.answer.stored} answer of ${r.attemptId} is stored, not carried`);
    return { httpStatus: r.answer.httpStatus, body: r.answer.body };
  }
  const body: Record<string, unknown> = {
    requestId: attempt.input.requestId,
    attempt_id: r.attemptId,
    status: STATUS_WORDS[r.status],
    audit: r.audit,
    wallet: r.wallet,
    ...familyFields(attempt, r),
  };
  if (r.approval) body.approval = { id: r.approval.id, status: 'pending', expires_at: r.approval.expiresAt };
  if (r.failure) body.failure = r.failure;
  if (r.status === 'failed' && r.output) body.output = r.output;
  if (!r.denial) return { httpStatus: 200, body };
  const denial = {
    reason: r.denial.reason,
    ruleType: r.denial.ruleType,
    ruleId: r.denial.ruleId,
    ruleName: r.denial.ruleName,
  };
  const approval = r.approval ? { approval_id: r.approval.id, expires_at: r.approval.expiresAt } : {};
  return { httpStatus: 403, body: { ...denial, ...approval, ...body } };
}

const FLAG_KEY = '"idempotent_replay":';
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * A stored answer's text as its replay (`{ ...body, idempotent_replay: true }` serialized), made from the
 * text itself: the top-level flag turned true in place, or appended when the body has none. The text is
 * the first answer's JSON.stringify, so this is the bytes a parse, spread and stringify would make, with
 * nothing decoded. Only the head of the body is walked (the flag precedes the audit); null when the text is
 * not one object or the flag holds anything but a boolean, and the caller decodes it instead.
 */
export function replayText(text: string): string | null {
  if (text.charCodeAt(0) !== 0x7b || text.charCodeAt(text.length - 1) !== 0x7d) return null;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // A key of the body itself: a string at depth 1 followed by a colon (a value is followed by , or }).
      if (depth === 1 && text.startsWith(FLAG_KEY, i)) {
        const at = i + FLAG_KEY.length;
        if (text.startsWith('true', at)) return text;
        if (text.startsWith('false', at)) return `${text.slice(0, at)}true${text.slice(at + 5)}`;
        return null;
      }
      // Skip the string, escapes included.
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === BACKSLASH) i++;
        else if (s === QUOTE) break;
      }
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return text === '{}' ? '{"idempotent_replay":true}' : `${text.slice(0, -1)},"idempotent_replay":true}`;
}
