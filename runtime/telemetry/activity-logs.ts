// The log fields of an activity (its type, workflow, and the attempt and organization its input names),
// bound for every line it writes, and one debug line as it ends with its duration and outcome.
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { withLogFields, type Logger } from '../logger';
import { idsOf } from './tracing';

export function activityLogs(log: Logger): ActivityInterceptorsFactory {
  return (ctx) => ({
    inbound: {
      execute(input, next) {
        const ids = idsOf(input.args[0]);
        const fields = {
          activity: ctx.info.activityType,
          workflow_id: ctx.info.workflowExecution?.workflowId,
          ...(ids.attemptId ? { attempt_id: ids.attemptId } : {}),
          ...(ids.orgId ? { org_id: ids.orgId } : {}),
        };
        return withLogFields(fields, async () => {
          const started = Date.now();
          try {
            const result = await next(input);
            log.debug('activity completed', { duration_ms: Date.now() - started, attempt: ctx.info.attempt });
            return result;
          } catch (error) {
            log.debug('activity failed', {
              duration_ms: Date.now() - started,
              attempt: ctx.info.attempt,
              error: (error as Error).message,
            });
            throw error;
          }
        });
      },
    },
  });
}
