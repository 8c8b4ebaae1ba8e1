// Card authorization as a family of the engine. Its authorize step runs where the issuer asks, inside the
// issuer's deadline (domain/issuer/authorization-family.ts, one transaction ending the attempt through the
// engine's endAttempt); these steps are what the engine does with the attempt afterwards, all answered by
// the gateway's record of the issuer's messages: authorize reads the decision, the issuer's capture is the
// send (a pending authorization's outcome is not known yet), settle finds the debit the capture posted, and
// release frees what an approval still holds: the gateway's own expiry (card.authorization.expired).
import { appendStep, type AuditStep } from '../../../contracts/attempt-audit';
import type { Looked, Sent } from '../../../contracts/attempt';
import type { CardAuthorizationInput } from '../../../contracts/card-authorization';
import { authorizationState, expireAuthorization } from '../../../domain/issuer/issuer-messages';
import type { ActivityDeps } from '../../deps';
import type { AttemptFamilySteps } from '../family';

async function stateOf(deps: ActivityDeps, input: CardAuthorizationInput) {
  const state = await authorizationState(deps.db, input.issuer, input.issuerAuthorizationId);
  if (!state) throw new Error(`no card authorization ${input.issuerAuthorizationId} of ${input.issuer}`);
  return state;
}

/** What the issuer's messages made of the authorization: captured, released, or still pending. */
async function issuerOutcome(
  deps: ActivityDeps,
  input: CardAuthorizationInput,
): Promise<Exclude<Sent, { status: 'unknown' }> | null> {
  const { row } = await stateOf(deps, input);
  if (row.status === 'pending') return null;
  if (row.status === 'closed')
    return {
      status: 'succeeded',
      paymentId: input.issuerAuthorizationId,
      output: { captured_minor: row.captured_minor.toString() },
    };
  return {
    status: 'refused',
    code: row.status,
    message: `the authorization was ${row.status}`,
    output: null,
  };
}

/** Frees what the approval still holds (the gateway's expiry); nothing when a message closed it first. */
async function expire(
  deps: ActivityDeps,
  input: CardAuthorizationInput,
): Promise<{ releaseId: string | null; steps: AuditStep[] }> {
  const steps: AuditStep[] = [];
  const { expired } = await expireAuthorization(deps.db, input.issuer, input.issuerAuthorizationId);
  const { hold } = await stateOf(deps, input);
  if (expired) appendStep(steps, 'release', 'pass', `expired: released ${input.amountMinor} as ${hold?.id}`);
  else appendStep(steps, 'release', 'skip', "the issuer's message closed the authorization first");
  return { releaseId: expired ? (hold?.resolved_entry_id ?? null) : null, steps };
}

export const cardAuthorization: AttemptFamilySteps<'card_authorization'> = {
  async authorize(deps, input) {
    const { row, hold } = await stateOf(deps, input);
    const steps: AuditStep[] = [];
    if (!row.approved || !hold) {
      appendStep(steps, 'hold', 'fail', `declined: ${row.decline_reason}`);
      return {
        kind: 'refused',
        insufficientFunds: row.decline_reason === 'insufficient_funds',
        failure: {
          code: row.decline_reason ?? 'declined',
          message: 'the gateway declined the authorization',
        },
        steps,
      };
    }
    appendStep(steps, 'hold', 'pass', `held ${row.amount_minor} ${row.currency} as ${hold.id}`);
    return { kind: 'held', holdId: hold.id, steps };
  },

  async send(deps, input): Promise<Sent> {
    return (
      (await issuerOutcome(deps, input)) ?? {
        status: 'unknown',
        message: "awaiting the issuer's capture or reversal",
      }
    );
  },

  async lookup(deps, input): Promise<Looked> {
    const known = await issuerOutcome(deps, input);
    const steps: AuditStep[] = [];
    appendStep(
      steps,
      'lookup',
      known ? 'pass' : 'skip',
      known ? known.status : 'still pending at the issuer',
    );
    return known
      ? { sent: known, steps }
      : { sent: { status: 'uncertain', message: "awaiting the issuer's capture or reversal" }, steps };
  },

  // The capture debited the hold when the issuer's message was applied; settling finds that debit.
  async settle(deps, { input, sent }) {
    const { hold } = await stateOf(deps, input);
    const steps: AuditStep[] = [];
    appendStep(steps, 'debit', 'pass', `captured by the issuer against ${hold?.id}`);
    return {
      debitId: hold?.resolved_entry_id ?? input.attemptId,
      paymentId: sent.paymentId,
      output: sent.output,
      split: null,
      steps,
    };
  },

  async release(deps, { input, sent }) {
    const { releaseId, steps } = await expire(deps, input);
    return {
      releaseId: releaseId ?? input.attemptId,
      failure: { code: sent.code, message: sent.message },
      output: null,
      steps,
    };
  },

  releaseIfHeld: (deps, input) => expire(deps, input),
};
