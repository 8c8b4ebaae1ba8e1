// Shapes provisioning runs and their history for responses.
import type { RunRow, StepRow } from '../../domain/provisioning/runs';

export function presentRun(run: RunRow) {
  return {
    id: run.id,
    object: 'provisioning_run' as const,
    provider: run.provider,
    method: run.method,
    environment: run.environment,
    status: run.status,
    email: run.email,
    label: run.label,
    verification:
      run.verification_sent_to && run.verification_expires_at
        ? { sent_to: run.verification_sent_to, expires_at: run.verification_expires_at }
        : null,
    connection_id: run.connection_id,
    failure: run.failure_code ? { code: run.failure_code, message: run.failure_message ?? '' } : null,
    created_at: run.created_at,
    updated_at: run.updated_at,
    finished_at: run.finished_at,
  };
}

export function presentHistory(runId: string, steps: StepRow[]) {
  return { run_id: runId, steps: steps.map((s) => ({ step: s.step, detail: s.detail, at: s.at })) };
}
