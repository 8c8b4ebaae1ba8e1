// The shapes a paid tool call passes between the API, its workflow and its activities. Types only, so
// workflow code can import them.
import type { Environment } from './environment';

export interface ToolChargeInput {
  /** The caller: its organization, project and environment, and the wallet it pays from. */
  orgId: string;
  projectId: string;
  environment: Environment;
  attemptId: string;
  walletId: string;
  /** The agent the policy rules see: the session's agent. */
  agentId: string;
  /** The tool as sessions and policies name it (`<slug>.<tool>`), and as the upstream names it. */
  toolName: string;
  upstreamTool: string;
  arguments: Record<string, unknown>;
  /** The tenant's server, and where its share and the platform fee are credited. */
  serverId: string;
  serverOrgId: string;
  serverProjectId: string;
  payoutWalletId: string;
  feeWalletId: string;
  /** The price the call was authorized at (a later price change never reaches it), and the fee rate. */
  priceMinor: string;
  currency: string;
  platformFeeBps: number;
  requestId: string;
  /** Set when a call held for approval is replayed: approval-required rules are satisfied. */
  approvalId?: string;
}

/** The approval kind of a held paid call; the approval hold replays it (workflows/replays.ts). */
export const TOOL_CHARGE_KIND = 'tool_server.charge';

export type ChargeAuthorization =
  | { kind: 'held'; holdId: string }
  | { kind: 'insufficient_funds'; available: string }
  | { kind: 'wallet_not_active'; status: string }
  | { kind: 'denied'; reason: string; ruleType: string; ruleId: string; ruleName: string }
  | {
      kind: 'requires_approval';
      reason: string;
      ruleType: string;
      ruleId: string;
      ruleName: string;
      approvalId: string;
      expiresAt: string;
    };

export interface ChargeSplit {
  debitId: string;
  tenantShareMinor: string;
  feeMinor: string;
}

export type UpstreamResult =
  | { status: 'succeeded'; output: Record<string, unknown> }
  | { status: 'failed'; code: string; message: string; output?: Record<string, unknown> }
  | { status: 'unknown'; message: string };

/** The call's answer: what the tool-call path records and the REST / MCP doors render. */
export interface ToolChargeOutcome {
  httpStatus: number;
  status: 'completed' | 'failed' | 'denied' | 'requires-approval';
  body: Record<string, unknown>;
}

export type ToolChargeAnswer = ToolChargeOutcome | { status: 'upstream_uncertain'; detail: string };

/** What someone who knows the upstream's records says a call whose answer never came did. */
export type ToolChargeVerdict = 'succeeded' | 'failed';

/** A held call's resolution and who made it (`key:<id>` for the tenant, `user:<name>` for an operator). */
export interface ToolChargeResolution {
  outcome: ToolChargeVerdict;
  resolvedBy: string;
}
