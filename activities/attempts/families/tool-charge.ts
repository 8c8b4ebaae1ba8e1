// A paid call of a tenant tool server as a family of the engine: the policy gate and a hold on the caller's
// wallet for the price the call was authorized at, the upstream tools/call (sent once: MCP has no
// idempotency key, so nobody can be asked what became of a lost answer; the charge turns uncertain and waits
// for the tenant or an operator to resolve it), then the debit with the tenant's share and the platform fee
// credited in the same transaction, or the release.
import { ApplicationFailure } from '@temporalio/activity';
import { appendStep, type AuditStep } from '../../../contracts/attempt-audit';
import type { Sent } from '../../../contracts/attempt';
import { readAttempt } from '../../../domain/attempts/store';
import { markToolChargeUncertain } from '../../../domain/tool-servers/charge-resolution';
import {
  authorizeToolCharge,
  beginToolCall,
  releaseToolCharge,
  releaseToolChargeIfHeld,
  settleToolCharge,
} from '../../../domain/tool-servers/charges';
import { openSealed, serverEndpoint } from '../../../domain/tool-servers/upstream-auth';
import { callTenantTool } from '../../../providers/mcp-client/dispatch';
import type { UpstreamAuth, UpstreamCallOutcome } from '../../../providers/mcp-client/upstream';
import { keyServiceFor } from '../../../domain/vault/select';
import { NOTHING_SENT, type AttemptFamilySteps } from '../family';

function steps(): [AuditStep[], (name: string, status: AuditStep['status'], detail: string) => void] {
  const list: AuditStep[] = [];
  return [list, (name, status, detail) => appendStep(list, name, status, detail)];
}

/** The parts of a stored paid-call answer a lookup hands on. */
interface StoredBody {
  output?: Record<string, unknown> | null;
  failure?: { code: string; message: string };
}
const storedBody = (text: string): StoredBody => JSON.parse(text) as StoredBody;

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

const SERVER_UNKNOWN: Sent = {
  status: 'refused',
  code: 'server_unknown',
  message: 'The tool server no longer exists',
  output: null,
};

/** The upstream's answer as the engine reads a send's. */
function sentOf(result: UpstreamCallOutcome): Sent {
  if (result.status === 'succeeded') return { status: 'succeeded', paymentId: null, output: result.output };
  if (result.status === 'failed')
    return { status: 'refused', code: result.code, message: result.message, output: result.output ?? null };
  return result;
}

/** The upstream call a paid call makes, to the server as it was read for this send. */
const upstreamCall = (
  input: { serverId: string; upstreamTool: string; arguments: Record<string, unknown> },
  server: { upstreamUrl: string; environment: Parameters<typeof callTenantTool>[1]['environment'] },
) => ({
  serverId: input.serverId,
  upstreamUrl: server.upstreamUrl,
  environment: server.environment,
  tool: input.upstreamTool,
  arguments: input.arguments,
});

export const toolCharge: AttemptFamilySteps<'tool_charge'> = {
  async authorize(deps, input) {
    const auth = await authorizeToolCharge(deps.db, input);
    const [audit, step] = steps();
    switch (auth.kind) {
      case 'wallet_not_active':
        step('hold', 'fail', `wallet_not_active: the wallet is ${auth.status}`);
        return {
          kind: 'refused',
          insufficientFunds: false,
          failure: { code: 'wallet_not_active', message: `The wallet is ${auth.status}` },
          steps: audit,
        };
      case 'denied': {
        const { kind: _kind, ...denial } = auth;
        step('policy', 'fail', `${auth.reason} by ${auth.ruleType} rule ${auth.ruleId}`);
        return { kind: 'denied', denial, steps: audit };
      }
      case 'requires_approval': {
        const { reason, ruleType, ruleId, ruleName } = auth;
        step('policy', 'fail', `approval_required by rule ${auth.ruleId}`);
        step('approval', 'pass', `held as ${auth.approvalId} until ${auth.expiresAt}`);
        step('hold', 'skip', 'no funds held while waiting for a decision');
        return {
          kind: 'requires_approval',
          denial: { reason, ruleType, ruleId, ruleName },
          approvalId: auth.approvalId,
          expiresAt: auth.expiresAt,
          steps: audit,
        };
      }
      case 'insufficient_funds':
        step('policy', 'pass', 'allowed');
        step('hold', 'fail', `insufficient funds: ${auth.available} available`);
        return {
          kind: 'refused',
          insufficientFunds: true,
          failure: { code: 'insufficient_funds', message: 'The wallet cannot cover the price' },
          steps: audit,
        };
      case 'held':
        step('policy', 'pass', input.approvalId ? `allowed after approval ${input.approvalId}` : 'allowed');
        step('hold', 'pass', `held ${input.priceMinor} ${input.currency} as ${auth.holdId}`);
        return { kind: 'held', holdId: auth.holdId, steps: audit };
    }
  },

  /** The server's URL is read now (it may have been deleted since: calls in flight finish). */
  async send(deps, input): Promise<Sent> {
    const endpoint = await serverEndpoint(deps.db, input.serverId);
    if (!endpoint) return SERVER_UNKNOWN;
    return sentOf(await callTenantTool(deps, upstreamCall(input, endpoint)));
  },

  /** The mark, the server's URL and its credential in one statement, then the call itself. */
  async sendOnce(deps, input): Promise<Sent | null> {
    const begun = await beginToolCall(deps.db, input);
    if (!begun) return null;
    const { server } = begun;
    if (!server) return SERVER_UNKNOWN;
    let auth: UpstreamAuth | null;
    try {
      auth = await openSealed(keyServiceFor(deps.config.vault), input.serverId, server.sealed);
    } catch (error) {
      // Marked, but the call never started: this run holds the mark, so no other run made it either.
      throw ApplicationFailure.nonRetryable(`nothing sent: ${messageOf(error)}`, NOTHING_SENT);
    }
    try {
      return sentOf(await callTenantTool(deps, { ...upstreamCall(input, server), auth }));
    } catch (error) {
      // Whatever broke once the call started, the upstream may have acted on it.
      return { status: 'unknown', message: messageOf(error) };
    }
  },

  /**
   * Nobody can be asked: the charge turns uncertain (once, with its event) until someone resolves it. A
   * charge the step that sent the call already debited or released (its answer lost after it) is known.
   */
  async lookup(deps, input, unknown) {
    const [audit, step] = steps();
    if (unknown.round === 0) {
      const before = await markToolChargeUncertain(deps.db, input);
      if (before === 'debited' || before === 'released') {
        // That step stored the attempt's answer with its money: the upstream's own output and failure are there.
        const stored = await readAttempt(deps.db, input.orgId, input.attemptId);
        const body: StoredBody = stored?.response_text ? storedBody(stored.response_text) : {};
        const output = body.output ?? null;
        if (before === 'debited')
          return { sent: { status: 'succeeded', paymentId: null, output }, steps: audit };
        const failure = body.failure ?? { code: 'upstream_failed', message: unknown.message };
        return { sent: { status: 'refused', ...failure, output }, steps: audit };
      }
      step('dispatch', 'fail', `outcome unknown: ${unknown.message}; the hold stays until it is known`);
    }
    return { sent: { status: 'uncertain', message: unknown.message }, steps: audit };
  },

  async settle(deps, { input, sent, resolution }) {
    const [audit, step] = steps();
    step('dispatch', 'pass', `upstream ${input.upstreamTool} answered`);
    const split = await settleToolCharge(deps.db, input, resolution);
    step(
      'debit',
      'pass',
      `debited entry ${split.debitId}; tenant ${split.tenantShareMinor}, platform fee ${split.feeMinor}`,
    );
    return {
      debitId: split.debitId,
      paymentId: null,
      output: resolution
        ? { resolved: 'succeeded', resolved_by: resolution.resolvedBy }
        : (sent.output ?? {}),
      split: { tenantShareMinor: split.tenantShareMinor, feeMinor: split.feeMinor },
      steps: audit,
    };
  },

  async release(deps, { input, sent, resolution }) {
    const [audit, step] = steps();
    const failure = resolution
      ? { code: 'upstream_failed', message: `resolved as failed by ${resolution.resolvedBy}` }
      : { code: sent.code, message: sent.message };
    step('dispatch', 'fail', `${failure.code}: ${failure.message}`);
    const releaseId = await releaseToolCharge(deps.db, input, resolution);
    step('release', 'pass', `released entry ${releaseId}`);
    return { releaseId, failure, output: resolution ? null : sent.output, steps: audit };
  },

  async releaseIfHeld(deps, input, message) {
    const [audit, step] = steps();
    const releaseId = await releaseToolChargeIfHeld(deps.db, input);
    step('hold', 'fail', `the call broke before the upstream call: ${message}`);
    if (releaseId) step('release', 'pass', `released entry ${releaseId}`);
    return { releaseId, steps: audit };
  },
};
