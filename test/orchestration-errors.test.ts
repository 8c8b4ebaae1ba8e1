// Which Temporal client errors mean "read the attempt's answer from PostgreSQL" and which are real faults:
// the shapes the client throws, including the bare gRPC error Update-with-Start rethrows for a failed
// operation (a racing crowd of duplicates meets the server's limit of in-flight updates on one workflow).
import { ServiceError, WorkflowNotFoundError } from '@temporalio/client';
import { answerIsStored } from '../orchestration/errors';

function grpcError(code: number, details: string): Error {
  return Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });
}

describe('answerIsStored', () => {
  it('reads the stored answer after an update refused for too many in flight, bare or wrapped', () => {
    const exhausted = grpcError(8, 'limit on number of concurrent in-flight updates has been reached (10)');
    expect(answerIsStored(exhausted)).toBe(true);
    expect(answerIsStored(new ServiceError('Update-With-Start failed', { cause: exhausted }))).toBe(true);
  });

  it('reads the stored answer after an update the server aborted because the workflow closed', () => {
    expect(answerIsStored(grpcError(14, 'workflow update was aborted'))).toBe(true);
    expect(answerIsStored(new WorkflowNotFoundError('gone', 'wf', undefined))).toBe(true);
  });

  it('reads the stored answer after a call that ran past its deadline, as either connection reports it', () => {
    for (const code of [4, 1]) {
      expect(answerIsStored(grpcError(code, 'Timeout expired'))).toBe(true);
      expect(
        answerIsStored(new ServiceError('Failed to start Workflow', { cause: grpcError(code, '') })),
      ).toBe(true);
    }
  });

  it('lets real faults go up', () => {
    expect(answerIsStored(grpcError(3, 'invalid argument'))).toBe(false);
    expect(answerIsStored(new ServiceError('bad', { cause: grpcError(7, 'permission denied') }))).toBe(false);
    expect(answerIsStored(new Error('boom'))).toBe(false);
    expect(answerIsStored(undefined)).toBe(false);
  });
});
