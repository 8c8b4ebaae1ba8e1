// What each approval kind stores to replay its held call: the payload the area that held it writes, and
// the approval-hold workflow replays (workflows/replays.ts). Types only, so workflows and domain share them.
import type { CardAuthorizationInput } from './card-authorization';
import type { SpendRequest } from './consumer-spend';
import type { SpendInput } from './spend';
import type { ToolChargeInput } from './tool-charge';

/**
 * How an approved call's replay went, as its approval records it: the result itself, or, for an attempt
 * that stored its own answer (a consumer spend), which attempt's stored answer is the result.
 */
export type ReplayOutcome =
  { ok: boolean; result: Record<string, unknown> } | { ok: boolean; storedAnswerOf: { attemptId: string } };

/** An attempt's input as its approval stores it: without the approval its replay adds. */
export type Held<T> = Omit<T, 'approvalId'>;

/** What the replay of an approved tool call needs: the very call, in its session. */
export interface HeldToolCall {
  sessionId: string;
  serverId: string;
  toolName: string;
  /** The provider's own tool name (`pix_key_lookup`), which the dispatch posts to. */
  providerTool: string;
  arguments: Record<string, unknown>;
  heldCallId: string;
}

export interface ApprovalPayloads {
  'wallet.execute': Held<SpendInput>;
  'tool_server.charge': Held<ToolChargeInput>;
  'consumer.spend': SpendRequest;
  /** Never held (decided inside the issuer's deadline); the engine names a kind for every family. */
  'card.authorization': Held<CardAuthorizationInput>;
  'tool.call': HeldToolCall;
}
export type ApprovalKind = keyof ApprovalPayloads;
