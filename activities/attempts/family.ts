// What a money-out family is to the engine: its steps, each one short and idempotent (a retry finds its own
// earlier write), each answering the audit steps it worded. The engine's workflow (workflows/attempt.ts)
// runs them in one order for every family; a family's traits are in contracts/attempt.ts.
import type { AuditStep } from '../../contracts/attempt-audit';
import type {
  Authorized,
  EngineFamily,
  FamilyInputs,
  Looked,
  Released,
  Sent,
  Settled,
} from '../../contracts/attempt';
import type { ToolChargeResolution } from '../../contracts/tool-charge';
import type { ActivityDeps } from '../deps';

export interface AfterSend<F extends EngineFamily, S extends Sent['status']> {
  input: FamilyInputs[F];
  sent: Extract<Sent, { status: S }>;
  /** Set when someone who knows resolved an unknown outcome: the send's answer is then theirs. */
  resolution: ToolChargeResolution | null;
}

export interface AttemptFamilySteps<F extends EngineFamily> {
  /** The policy gate and a hold for the amount (one transaction), an approval for a held call, or a refusal. */
  authorize(deps: ActivityDeps, input: FamilyInputs[F]): Promise<Authorized>;
  /** Sends the attempt to whoever pays it, under its idempotency key when the family has one. */
  send(deps: ActivityDeps, input: FamilyInputs[F]): Promise<Sent>;
  /**
   * Asks what became of a send whose answer never came (`round` 0 first). Never throws for the other side's
   * trouble: a payment that may have left stays `uncertain`, and only `not received` becomes a refusal.
   */
  lookup(
    deps: ActivityDeps,
    input: FamilyInputs[F],
    unknown: { message: string; round: number },
  ): Promise<Looked>;
  /** Debits the hold (with whatever the family credits in the same transaction). */
  settle(deps: ActivityDeps, after: AfterSend<F, 'succeeded'>): Promise<Settled>;
  /** Returns the hold. */
  release(deps: ActivityDeps, after: AfterSend<F, 'refused'>): Promise<Released>;
  /** Frees what an attempt that broke before its send may hold (its authorization may have committed). */
  releaseIfHeld(
    deps: ActivityDeps,
    input: FamilyInputs[F],
    message: string,
  ): Promise<{ releaseId: string | null; steps: AuditStep[] }>;
}
