// A priced tool of a tenant tool server, called from the one tool-call path: the call is an attempt of the
// attempt engine (family tool_charge: its id claimed in the attempts table beside wallet executes', the
// bounded wait, the answer and the answers read from PostgreSQL are attempt-engine.ts's). The call carries the
// price read now, so a later price change never reaches it. A repeat with the same attempt id answers the
// first outcome; one still running (or whose upstream answer never came) answers 409 attempt_in_progress.
import { ApiError } from '../../domain/errors';
import { sortableId } from '../../domain/ids';
import {
  finishToolCall,
  openToolCall,
  toolCallId,
  type ToolCallOutcome,
} from '../../domain/sessions/tool-calls';
import type { SessionRow } from '../../domain/sessions/sessions';
import { ATTEMPT_WORKFLOW, type AttemptInput, type AttemptReply } from '../../contracts/attempt';
import {
  claimAttempt,
  fingerprint,
  readAttempt,
  releaseClaim,
  replayBytes,
  type AttemptRow,
} from '../../domain/attempts/store';
import type { ToolChargeInput } from '../../contracts/tool-charge';
import { splitPayment } from '../../domain/tool-servers/tool-specs';
import type { ToolSpec } from '../../domain/tools/tool-spec';
import { getWallet } from '../../domain/wallets/wallets';
import { attemptWorkflowId, runAttempt } from '../../orchestration/attempts';
import { joinLegacyToolCharge } from '../../orchestration/legacy-attempts';
import { attemptInProgress, awaitAttempt, engineReply } from '../attempt-engine';
import type { AppDeps } from '../deps';
import type { Principal } from '../principal';
import type { ToolCallAnswer } from './tool-call-answer';
import { endRefusedCall } from './attempt-call';

const IN_PROGRESS = 'This call is still running; present it again with the same attempt_id to get its result';
const UNCERTAIN =
  "The upstream's answer never came; the price stays held until its outcome is known. Present the same attempt_id again";

const scopeOf = (p: Principal) => ({ orgId: p.orgId, projectId: p.projectId, environment: p.environment });

/** A finished attempt's stored answer, as first sent. */
const storedReply = (row: AttemptRow): AttemptReply => ({
  httpStatus: row.response_status ?? 200,
  body: JSON.parse(replayBytes(row).toString('utf8')) as Record<string, unknown>,
});

export async function paidTenantCall(
  deps: AppDeps,
  principal: Principal,
  session: SessionRow,
  tool: ToolSpec,
  args: Record<string, unknown>,
  requestId: string,
): Promise<ToolCallAnswer> {
  if (tool.dispatch.kind !== 'tenant') throw new Error('paidTenantCall takes a tenant tool');
  const { server, tool: priced } = tool.dispatch;
  const { payment, upstream: upstreamArgs } = splitPayment(args);
  const attemptId = payment.attempt_id ?? sortableId('att');
  const wallet = await getWallet(deps.db, principal.orgId, principal.projectId, payment.wallet_id);
  const request = { tool: tool.name, arguments: upstreamArgs, price_minor: priced.price_minor.toString() };
  const { row, created } = await openToolCall(deps.db, {
    orgId: principal.orgId,
    projectId: principal.projectId,
    sessionId: session.id,
    serverId: tool.serverId,
    toolName: tool.name,
    input: args,
    attemptId,
    routing: {
      engine: 'tool_charge',
      tool_server_id: server.id,
      wallet_id: wallet.id,
      price_minor: priced.price_minor.toString(),
      currency: server.currency,
    },
  });
  let outcome: AttemptReply;
  try {
    // The fingerprint leaves the price out: a retry after a price change is the same call at its first price.
    const claim = await claimAttempt(deps.db, {
      family: 'tool_charge',
      orgId: principal.orgId,
      projectId: principal.projectId,
      environment: principal.environment,
      walletId: wallet.id,
      attemptId,
      fingerprint: fingerprint(principal.projectId, wallet.id, { tool: tool.name, arguments: upstreamArgs }),
      request,
      workflowType: ATTEMPT_WORKFLOW,
      workflowId: attemptWorkflowId('tool_charge', principal.orgId, attemptId),
      amountMinor: priced.price_minor.toString(),
      currency: server.currency,
    });
    if (claim.row.status !== 'processing') {
      outcome = storedReply(claim.row);
    } else {
      if (claim.created && wallet.status !== 'active') {
        await releaseClaim(deps.db, principal.orgId, attemptId);
        throw new ApiError(
          409,
          'wallet_not_active',
          `The wallet is ${wallet.status}; only active wallets pay`,
          {
            status: wallet.status,
          },
        );
      }
      const input: ToolChargeInput = {
        orgId: principal.orgId,
        projectId: principal.projectId,
        environment: principal.environment,
        attemptId,
        walletId: wallet.id,
        agentId: session.agent_id,
        toolName: tool.name,
        upstreamTool: priced.tool_name,
        arguments: upstreamArgs,
        serverId: server.id,
        serverOrgId: server.org_id,
        serverProjectId: server.project_id,
        payoutWalletId: server.payout_wallet_id,
        feeWalletId: server.fee_wallet_id,
        priceMinor: priced.price_minor.toString(),
        currency: server.currency,
        platformFeeBps: server.platform_fee_bps,
        requestId,
      };
      const attempt: AttemptInput = { family: 'tool_charge', input };
      // A call claimed under the workflow type from before the engine is joined through its own messages.
      const answer: Promise<AttemptReply> =
        claim.row.workflow_type === ATTEMPT_WORKFLOW
          ? runAttempt(deps.temporal, attempt).then((done) => engineReply(attempt, done, UNCERTAIN))
          : joinLegacyToolCharge(deps.temporal, claim.row.workflow_id).then((done) => {
              if (done.status === 'upstream_uncertain') throw attemptInProgress(attemptId, UNCERTAIN);
              return done;
            });
      outcome = await awaitAttempt(answer, {
        attemptId,
        inProgressMessage: IN_PROGRESS,
        stored: async () => {
          const stored = await readAttempt(deps.db, principal.orgId, attemptId);
          return stored && stored.status !== 'processing' ? storedReply(stored) : null;
        },
      });
    }
  } catch (error) {
    await endRefusedCall(deps, principal, { row, created }, error);
    throw error;
  }
  const body = outcome.body;
  const failure = body.failure as { code?: string } | undefined;
  const recorded: ToolCallOutcome =
    body.status === 'completed'
      ? { ok: true, errorCode: null, output: (body.output as Record<string, unknown>) ?? {} }
      : {
          ok: false,
          errorCode:
            body.status === 'denied' || body.status === 'requires-approval'
              ? String(body.reason ?? 'denied')
              : (failure?.code ?? 'failed'),
          output: body,
          approvalId: typeof body.approval_id === 'string' ? body.approval_id : null,
        };
  const call = await finishToolCall(deps.db, scopeOf(principal), row.seq, recorded);
  const denial = outcome.httpStatus === 403 ? { ...body, tool_call_id: toolCallId(call) } : undefined;
  return { status: outcome.httpStatus, call, denial };
}
