// Activities of the paidToolCall workflow type from before the one engine (workflows/legacy/), kept while
// calls claimed under it may still run or replay, and the platform fee sweep's.
import { finishAttempt } from '../domain/attempts/store';
import { refusalsAsFailures } from './attempts';
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
    markToolChargeUncertain: async (input: ToolChargeInput): Promise<void> => {
      await markToolChargeUncertain(deps.db, input);
    },
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
        {
          family: 'tool_charge',
          attemptId: input.attemptId,
          approvalId: input.approvalId ?? null,
          status: outcome.status === 'requires-approval' ? 'requires_approval' : outcome.status,
          reply: { httpStatus: outcome.httpStatus, body: outcome.body },
          providerPaymentId: null,
        },
      );
    },
  };
}
