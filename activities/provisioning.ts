// The activities of a provisioning run: the provider's sign-up, a verification code checked at the
// provider, the issued API key sealed as the project's connection, and the run's end. Each records its
// step in the run's history; each is safe to retry: provider calls carry the run's id as their
// idempotency key, and the connection's id comes from the run's, so a retried store finds its first row.
import { ApplicationFailure } from '@temporalio/activity';
import { open } from '../domain/crypto/secret-box';
import { ApiError } from '../domain/errors';
import { catalogServer, type CatalogServer } from '../domain/providers/catalog';
import { sealConnection, storeObtainedConnection } from '../domain/providers/connections';
import { checkCredential } from '../domain/providers/credential-rules';
import { catalogEndpoint } from '../domain/providers/endpoints';
import { quarantineIfFailing } from '../domain/provisioning/quarantine';
import {
  awaitVerification,
  codeSealContext,
  endRun,
  findRun,
  recordStep,
  runSucceeded,
  signupVerified,
  verificationAccepted,
  type RunEnd,
  type RunRow,
} from '../domain/provisioning/runs';
import { keyServiceFor } from '../domain/vault/select';
import {
  SignupProtocolError,
  SignupRefused,
  SignupUnavailable,
  signupApi,
  type SignupApi,
} from '../providers/provisioning/signup-api';
import {
  SIGNUP_PROTOCOL,
  SIGNUP_REFUSED,
  type CodeOutcome,
  type SignupStep,
} from '../contracts/provisioning-messages';
import type { ActivityDeps } from './deps';

/** The connection a run stores: named by the run, so a retried store cannot make a second one. */
const connectionIdOf = (runId: string): string => `conn_${runId.replace(/^prun_/, '')}`;

export function provisioningActivities(deps: ActivityDeps) {
  const runOf = async (runId: string): Promise<{ run: RunRow; server: CatalogServer; api: SignupApi }> => {
    const run = await findRun(deps.db, runId);
    const server = run && catalogServer(run.provider);
    const descriptor = server?.provisioning;
    const baseUrl = server ? catalogEndpoint(deps.config, server, run.environment) : '';
    if (!run || !server || !descriptor || !baseUrl)
      throw ApplicationFailure.nonRetryable(
        `provisioning run ${runId} has no provider sandbox to sign up at`,
        SIGNUP_PROTOCOL,
      );
    return {
      run,
      server,
      api: signupApi({ baseUrl, path: descriptor.signup_path, timeoutMs: deps.config.providerTimeoutMs }),
    };
  };

  /** Runs a provider call: a refusal or an answer outside the protocol ends the run; no answer is retried. */
  const atProvider = async <T>(runId: string, step: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      if (error instanceof SignupRefused) {
        await recordStep(deps.db, runId, `${step}.refused`, { status: error.status, code: error.code });
        throw ApplicationFailure.nonRetryable(error.message, SIGNUP_REFUSED, { code: error.code });
      }
      if (error instanceof SignupProtocolError) {
        await recordStep(deps.db, runId, `${step}.protocol_error`, { message: error.message });
        throw ApplicationFailure.nonRetryable(error.message, SIGNUP_PROTOCOL);
      }
      if (error instanceof SignupUnavailable)
        await recordStep(deps.db, runId, `${step}.unavailable`, { status: error.status });
      throw error;
    }
  };

  return {
    async startSandboxSignup(runId: string): Promise<SignupStep> {
      const { run, api } = await runOf(runId);
      await recordStep(deps.db, runId, 'signup.requested', { provider: run.provider });
      const created = await atProvider(runId, 'signup', () =>
        api.createSignup({
          email: run.email,
          companyName: run.label ?? `Gateway project ${run.project_id}`,
          idempotencyKey: run.id,
        }),
      );
      if (!created.verification) {
        await signupVerified(deps.db, runId, created.accountId);
        return { verification: 'none' };
      }
      const expiresAt = new Date(Date.now() + created.verification.expiresInSeconds * 1000).toISOString();
      await awaitVerification(deps.db, runId, {
        accountId: created.accountId,
        sentTo: created.verification.sentTo,
        expiresAt,
      });
      return { verification: 'required', expiresInSeconds: created.verification.expiresInSeconds };
    },

    async verifySandboxSignup(input: { runId: string; codeSealed: string }): Promise<CodeOutcome> {
      const { run, api } = await runOf(input.runId);
      const code = open(deps.config.encryptionKeys, input.codeSealed, codeSealContext(run.id));
      if (!run.provider_account_id)
        throw ApplicationFailure.nonRetryable('the run has no sign-up to verify', SIGNUP_PROTOCOL);
      const verdict = await atProvider(input.runId, 'verification', () =>
        api.verifyCode(run.provider_account_id!, code),
      );
      if (verdict === 'accepted') await verificationAccepted(deps.db, input.runId);
      else await recordStep(deps.db, input.runId, `verification.${verdict}`);
      return verdict;
    },

    async issueSandboxCredential(runId: string): Promise<void> {
      const { run, server, api } = await runOf(runId);
      if (run.status !== 'running' || !run.provider_account_id) return;
      const secret = await atProvider(runId, 'api_key', () =>
        api.issueApiKey(run.provider_account_id!, run.id),
      );
      let checked;
      try {
        checked = checkCredential(server, 'test', { [server.provisioning!.credential_field]: secret });
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        await recordStep(deps.db, runId, 'api_key.protocol_error', { code: error.code });
        throw ApplicationFailure.nonRetryable(
          `the issued key is not a ${server.id} credential (${error.code})`,
          SIGNUP_PROTOCOL,
        );
      }
      const tenant = { orgId: run.org_id, projectId: run.project_id };
      const connectionId = connectionIdOf(run.id);
      const connection = {
        server,
        environment: run.environment,
        label: run.label ?? `Provisioned sandbox (${run.id})`,
        secrets: checked.secrets,
        settings: checked.settings,
      };
      const sealed = await sealConnection(
        keyServiceFor(deps.config.vault),
        tenant,
        connectionId,
        checked.secrets,
      );
      await deps.db.transaction(async (tx) => {
        await recordStep(tx, runId, 'api_key.issued', { field: server.provisioning!.credential_field });
        await storeObtainedConnection(tx, tenant, connectionId, connection, sealed);
        await recordStep(tx, runId, 'connection.stored', { connection_id: connectionId });
        await runSucceeded(tx, runId, connectionId);
      });
    },

    /** Ends the run; a failure may quarantine its provider, which the run's history then says. */
    async endProvisioningRun(input: { runId: string; end: RunEnd }): Promise<void> {
      await deps.db.transaction(async (tx) => {
        const ended = await endRun(tx, input.runId, input.end);
        if (!ended || input.end.status !== 'failed') return;
        const tripped = await quarantineIfFailing(tx, ended.provider);
        if (tripped) await recordStep(tx, input.runId, 'provider.quarantined', { failed_runs: tripped });
      });
    },
  };
}
