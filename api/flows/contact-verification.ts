// Contact verification through HTTP: start reserves a row and runs the delivery workflow, verify checks
// a code (locally against its hash, or through the provider that owns it). Every spec refusal maps here.
import { seal } from '../../domain/crypto/secret-box';
import { codeMatches, sealContactSecret } from '../../domain/contact-verification/codes';
import {
  CONTACT_VERIFICATION_INCOMPLETE,
  OTP_SENDER_REFUSED,
  OTP_SENDER_UNCONFIGURED,
} from '../../domain/contact-verification/failure-types';
import { CODE_FORMAT, providerFor, type Channel } from '../../domain/contact-verification/policy';
import { hashTarget, maskTarget, requireTarget } from '../../domain/contact-verification/targets';
import {
  discardVerification,
  findVerification,
  findVerificationById,
  markVerified,
  reserveVerification,
  spendAttempt,
  type VerificationRow,
} from '../../domain/contact-verification/verifications';
import { markConsumerVerified } from '../../domain/consumers/consumers';
import { findActivePartnerAccount } from '../../domain/consumers/funding-sources';
import type { Tenant } from '../../domain/consumers/tenant';
import { ApiError } from '../../domain/errors';
import { createSender } from '../../providers/otp/select';
import { workflowFailure } from '../../orchestration/errors';
import { runContactCodeCheck, runContactCodeDelivery } from '../../orchestration/contact-codes';
import type { SearchAttributeValues } from '../../contracts/search-attributes';
import type { DatabaseTransactionConnection } from '../../runtime/database';
import type { AppDeps } from '../deps';

const unavailable = (details?: Record<string, unknown>) =>
  new ApiError(503, 'otp_sender_unavailable', 'The one-time-code sender is unavailable; try again', details);
const verificationError = () =>
  new ApiError(500, 'contact_verification_error', 'Contact verification failed unexpectedly; try again');

const failureOf = workflowFailure;

function searchAttributes(tenant: Tenant, consumerId: string): SearchAttributeValues {
  return {
    orgId: tenant.orgId,
    projectId: tenant.projectId,
    environment: tenant.environment,
    consumerId,
  };
}

export async function startContactVerification(
  deps: AppDeps,
  tenant: Tenant,
  consumerId: string,
  input: { channel: Channel; target: string; locale: string },
): Promise<VerificationRow> {
  const target = requireTarget(input.channel, input.target);
  const provider = providerFor(tenant.environment, input.channel);
  // No sender configured: refused before anything is written, so a retry changes nothing.
  if (!createSender(provider, deps.config.providerUrls)) throw unavailable();
  const reserved = await reserveVerification(deps.db, tenant, {
    consumerId,
    channel: input.channel,
    provider,
    locale: input.locale,
    targetHash: hashTarget(deps.config.apiKeyPepper, input.channel, target),
    targetMasked: maskTarget(input.channel, target),
    codeKeyVersion: deps.config.encryptionKeys.current,
  });
  try {
    await runContactCodeDelivery(
      deps.temporal,
      {
        verificationId: reserved.id,
        targetSealed: seal(deps.config.encryptionKeys, target, sealContactSecret('target', reserved.id)),
      },
      searchAttributes(tenant, consumerId),
    );
  } catch (error) {
    const failure = failureOf(error);
    if (failure?.type === OTP_SENDER_REFUSED) {
      throw new ApiError(422, 'otp_sender_refused', 'The sender refused this target; nothing was sent', {
        provider,
      });
    }
    if (failure?.type === CONTACT_VERIFICATION_INCOMPLETE) {
      // The code reached the contact but the row could not open: it stands and counts against the ceiling.
      throw unavailable({ verification_id: reserved.id });
    }
    if (failure) throw unavailable(); // the send failed and the workflow removed the row: a retry is free
    await discardVerification(deps.db, reserved.id); // the workflow never ran
    deps.log.error('contact verification delivery could not run', {
      verification_id: reserved.id,
      error: (error as Error).message,
    });
    throw verificationError();
  }
  const sent = await findVerificationById(deps.db, reserved.id);
  if (!sent) throw verificationError();
  return sent;
}

type Outcome =
  | { kind: 'verified'; row: VerificationRow }
  | { kind: 'refused'; error: ApiError }
  | { kind: 'provider_check'; row: VerificationRow; attempt: number; attemptsLeft: number };

const invalidCode = (attemptsLeft: number, message = 'The code does not match') =>
  new ApiError(400, 'invalid_code', message, { attempts_left: attemptsLeft });

async function finishVerified(
  tenant: Tenant,
  tx: DatabaseTransactionConnection,
  row: VerificationRow,
): Promise<VerificationRow> {
  const verified = await markVerified(tx, tenant, row);
  const partner = await findActivePartnerAccount(tx, tenant, row.consumer_id);
  await markConsumerVerified(tx, tenant, row.consumer_id, {
    document: partner?.holder_document ?? null,
    documentSource: 'partner_attestation',
    verificationId: row.id,
  });
  return verified;
}

export async function verifyContactCode(
  deps: AppDeps,
  tenant: Tenant,
  consumerId: string,
  id: string,
  input: { code: string; target?: string },
): Promise<VerificationRow> {
  const pepper = deps.config.apiKeyPepper;
  // Attempts spent here must survive a refusal, so the transaction returns an outcome and the refusal is thrown after commit.
  const outcome: Outcome = await deps.db.transaction(async (tx) => {
    const row = await findVerification(tx, tenant, consumerId, id, true);
    if (!row || row.status === 'sending')
      return { kind: 'refused', error: new ApiError(404, 'not_found', 'Contact verification not found') };
    if (row.status === 'verified')
      return {
        kind: 'refused',
        error: new ApiError(409, 'already_verified', 'This verification already succeeded', {
          verified_at: row.verified_at,
        }),
      };
    if (row.status === 'superseded' || row.lapsed) {
      return {
        kind: 'refused',
        error: new ApiError(
          410,
          'verification_expired',
          'This code expired or a newer one was sent; start a new verification',
        ),
      };
    }
    const attemptsLeft = row.max_attempts - row.attempts_used;
    if (attemptsLeft <= 0)
      return {
        kind: 'refused',
        error: new ApiError(
          429,
          'too_many_attempts',
          'Every attempt of this verification was spent; start a new one',
          { max_attempts: row.max_attempts },
        ),
      };
    if (row.provider === 'prelude' && input.target === undefined) {
      return {
        kind: 'refused',
        error: new ApiError(
          400,
          'invalid_target',
          'target is required to check a code sent through prelude',
          { channel: row.channel },
        ),
      };
    }
    if (input.target !== undefined) {
      const target = requireTarget(row.channel, input.target);
      if (hashTarget(pepper, row.channel, target) !== row.target_hash) {
        await spendAttempt(tx, row.id);
        return { kind: 'refused', error: new ApiError(404, 'not_found', 'Contact verification not found') };
      }
    }
    if (!CODE_FORMAT.test(input.code))
      return { kind: 'refused', error: invalidCode(attemptsLeft, 'code must be 4 to 8 digits') };
    if (row.provider === 'prelude') {
      if (!createSender('prelude', deps.config.providerUrls))
        return { kind: 'refused', error: unavailable() };
      // The provider's answer is unknown until it is asked; the attempt is spent first, as the spec counts it.
      const left = await spendAttempt(tx, row.id);
      return { kind: 'provider_check', row, attempt: row.attempts_used + 1, attemptsLeft: left };
    }
    if (row.code_hash !== null && codeMatches(pepper, row.id, input.code, row.code_hash)) {
      return { kind: 'verified', row: await finishVerified(tenant, tx, row) };
    }
    return { kind: 'refused', error: invalidCode(await spendAttempt(tx, row.id)) };
  });

  if (outcome.kind === 'verified') return outcome.row;
  if (outcome.kind === 'refused') throw outcome.error;

  const { row } = outcome;
  let status: string;
  try {
    status = await runContactCodeCheck(
      deps.temporal,
      {
        verificationId: row.id,
        targetSealed: seal(
          deps.config.encryptionKeys,
          requireTarget(row.channel, input.target!),
          sealContactSecret('target', row.id),
        ),
        codeSealed: seal(deps.config.encryptionKeys, input.code, sealContactSecret('code', row.id)),
      },
      outcome.attempt,
      searchAttributes(tenant, consumerId),
    );
  } catch (error) {
    const failure = failureOf(error);
    if (failure?.type === OTP_SENDER_UNCONFIGURED) throw unavailable();
    if (failure) throw unavailable({ attempts_left: outcome.attemptsLeft });
    deps.log.error('contact code check could not run', {
      verification_id: row.id,
      error: (error as Error).message,
    });
    throw verificationError();
  }
  if (status === 'failure') throw invalidCode(outcome.attemptsLeft);
  if (status === 'expired')
    throw new ApiError(
      410,
      'verification_expired',
      'The provider no longer holds this code; start a new verification',
    );
  return deps.db.transaction(async (tx) => {
    const current = await findVerification(tx, tenant, consumerId, id, true);
    if (!current) throw new ApiError(404, 'not_found', 'Contact verification not found');
    if (current.status === 'verified') return current;
    return finishVerified(tenant, tx, current);
  });
}
