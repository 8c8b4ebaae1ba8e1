// Activities of a paid tool call: thin calls into domain/tool-servers and the tenant's upstream over MCP.
import { ApplicationFailure } from '@temporalio/activity';
import { ApiError } from '../domain/errors';
import { finishAttempt } from '../domain/spend/attempts';
import type {
  ToolChargeInput,
  ToolChargeOutcome,
  ToolChargeResolution,
  UpstreamResult,
} from '../contracts/tool-charge';
import { markToolChargeUncertain } from '../domain/tool-servers/charge-resolution';
import {
  authorizeToolCharge,
  releaseToolCharge,
  releaseToolChargeIfHeld,
  settleToolCharge,
} from '../domain/tool-servers/charges';
import { sweepPlatformFees } from '../domain/tool-servers/fees';
import { serverEndpoint } from '../domain/tool-servers/upstream-auth';
import { callTenantTool } from '../providers/mcp-client/dispatch';
import type { ActivityDeps } from './deps';

/** Business refusals become non-retryable failures typed by their code; conflicts and outages are retried. */
async function refusalsAsFailures<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ApiError && error.code !== 'ledger_conflict')
      throw ApplicationFailure.nonRetryable(error.message, error.code, error.details);
    throw error;
  }
}

export function toolChargeActivities(deps: ActivityDeps) {
  return {
    authorizeToolCharge: (input: ToolChargeInput) =>
      refusalsAsFailures(() => authorizeToolCharge(deps.db, input)),
    /** `resolution` when the call's answer never came and someone who knows settled it. */
    settleToolCharge: (input: ToolChargeInput, resolution: ToolChargeResolution | null = null) =>
      refusalsAsFailures(() => settleToolCharge(deps.db, input, resolution)),
    async releaseToolCharge(
      input: ToolChargeInput,
      resolution: ToolChargeResolution | null = null,
    ): Promise<{ releaseId: string }> {
      return refusalsAsFailures(async () => ({
        releaseId: await releaseToolCharge(deps.db, input, resolution),
      }));
    },
    /** What a call that broke before its upstream call may hold, released; null when it held nothing. */
    async releaseToolChargeIfHeld(input: ToolChargeInput): Promise<{ releaseId: string | null }> {
      return refusalsAsFailures(async () => ({ releaseId: await releaseToolChargeIfHeld(deps.db, input) }));
    },
    markToolChargeUncertain: (input: ToolChargeInput) => markToolChargeUncertain(deps.db, input),
    /** The upstream tools/call, sent once; the server's URL is read now (it may have been deleted since: calls in flight finish). */
    async callTenantUpstream(input: ToolChargeInput): Promise<UpstreamResult> {
      const endpoint = await serverEndpoint(deps.db, input.serverId);
      if (!endpoint)
        return { status: 'failed', code: 'server_unknown', message: 'The tool server no longer exists' };
      return callTenantTool(deps, {
        serverId: input.serverId,
        upstreamUrl: endpoint.upstreamUrl,
        environment: endpoint.environment,
        tool: input.upstreamTool,
        arguments: input.arguments,
      });
    },
    /** The schedule's sweep: every organization's accrued platform fees. */
    async sweepAllPlatformFees(): Promise<{ moved: number }> {
      return { moved: (await sweepPlatformFees(deps.db, null)).length };
    },
    async finishToolCharge({
      input,
      outcome,
    }: {
      input: ToolChargeInput;
      outcome: ToolChargeOutcome;
    }): Promise<void> {
      await finishAttempt(
        deps.db,
        { orgId: input.orgId, projectId: input.projectId, environment: input.environment },
        input.attemptId,
        { ...outcome, providerPaymentId: null },
        input.approvalId ?? null,
      );
    },
  };
}
